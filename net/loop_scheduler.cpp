#include "net/loop_scheduler.hpp"

#include "net/deadline_clock.hpp"

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/network/multiplexer.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>
#include <algorithm>
#include <thread>

namespace caflow {
namespace {

// Messages an actor handles before the loop turns to its sockets and other actors again.
constexpr size_t loop_throughput = 64;

class loop_coordinator final : public caf::scheduler::abstract_coordinator {
 public:
  explicit loop_coordinator(caf::actor_system& sys) : abstract_coordinator(sys) {}

  // Takes over the reference that comes with `job`, as CAF's schedulers do.
  void enqueue(caf::resumable* job) override {
    auto& loop = system().middleman().backend();
    loop.post([this, job, &loop] { run(job, loop); });
  }

  caf::actor_clock& clock() noexcept override { return clock_; }

  void start() override {
    timer_ = std::thread([this] {
      system().thread_started();
      clock_.run_dispatch_loop();
      system().thread_terminates();
    });
    abstract_coordinator::start();
  }

  void stop() override {
    stop_actors();
    clock_.cancel_dispatch_loop();
    if (timer_.joinable()) timer_.join();
  }

 private:
  void run(caf::resumable* job, caf::io::network::multiplexer& loop) {
    switch (job->resume(&loop, std::min(max_throughput(), loop_throughput))) {
      case caf::resumable::resume_later:
        enqueue(job);  // behind whatever else waits on the loop
        break;
      case caf::resumable::done:
      case caf::resumable::awaiting_message:
        caf::intrusive_ptr_release(job);
        break;
      case caf::resumable::shutdown_execution_unit:
        break;
    }
  }

  deadline_clock clock_;
  std::thread timer_;
};

}  // namespace

void run_actors_on_network_loop(caf::actor_system_config& cfg) {
  cfg.module_factories.push_back(
      [](caf::actor_system& sys) -> caf::actor_system::module* { return new loop_coordinator(sys); });
}

}  // namespace caflow
