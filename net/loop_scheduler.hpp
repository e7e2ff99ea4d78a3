#pragma once
// An actor scheduler that runs every scheduled actor of a system on the middleman's event loop
// (the thread that reads and writes its sockets) instead of a pool of threads.
//
// Why: a distributed step hands messages from the network to actors and back many times. With a
// thread pool each hand-over wakes another thread (a context switch, and on virtual machines an
// inter-processor interrupt), which dominates a small step's latency. On the loop, a message
// read from a socket reaches its actor, and the actor's replies reach the socket, on the same
// thread in the same turn of the loop.
//
// The price: an actor's handler holds up the process's networking while it runs. caflow's
// actors never run kernels there except light ones (actors/executor.hpp), and never block on
// the network (lookups run on a blocking_worker thread, net/middleman.hpp), so handlers are
// short; a task that reads a very large graph (a session's) or registers a very large partition
// pauses its I/O for that long; planning runs on a blocking_worker thread too
// (actors/master_planning.cpp).
// Timeouts run on a clock thread of their own (net/deadline_clock.hpp), woken only for an
// earlier deadline.
//
// Busy polling: for `busy_poll` after an actor last handled a message, the loop polls its
// sockets without sleeping, yielding its core to any other runnable thread every few polls
// while no actor of the loop waits for its turn (busy_poller_yields). A
// reply that comes back within that window is read without waking a sleeping thread, which on
// a virtual machine whose idle cores halt costs tens of microseconds (an exit to the
// hypervisor). An idle task sleeps as before; a busy one spends its idle moments polling.
#include <caf/actor_system_config.hpp>
#include <chrono>
#include <cstddef>

#include "graph/platform/busy_wait.hpp"

namespace caflow {

// Whether the loop's poller gives its core away at its `polls`th poll, with `waiting` actors
// queued on the loop and not yet run: every polls_per_yield polls, unless some wait. Yielding
// then would hand the core to another thread's poller while a message of this loop, from one of
// its actors to the next, waits out that poller's time slice.
constexpr bool busy_poller_yields(unsigned polls, size_t waiting) {
  return polls % polls_per_yield == 0 && waiting == 0;
}

// REQUIRES: the middleman is loaded into `cfg` (configure_network does that).
// busy_poll == 0 turns polling off: the loop sleeps whenever it has nothing to do.
void run_actors_on_network_loop(caf::actor_system_config& cfg,
                                std::chrono::microseconds busy_poll = default_busy_poll);

}  // namespace caflow
