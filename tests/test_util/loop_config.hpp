#pragma once
// An actor system configuration as servers have it: the middleman loaded, and every actor run
// on its network loop (net/loop/loop_scheduler.hpp, whose clock is net/loop/deadline_clock.hpp).
#include <caf/actor_system_config.hpp>
#include <chrono>

#include "net/loop/loop_scheduler.hpp"
#include "net/middleman.hpp"

namespace caflow::testing {

struct loop_config : caf::actor_system_config {
  explicit loop_config(std::chrono::microseconds busy_poll = default_busy_poll,
                       const failure_detection& fd = {}) {
    configure_network(*this, fd, transport_security{});
    run_actors_on_network_loop(*this, busy_poll);
  }
};

}  // namespace caflow::testing
