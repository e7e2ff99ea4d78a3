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
// actors never run kernels there except light ones (actors/executor/executor.hpp), and never block on
// the network (lookups run on a blocking_worker thread, net/middleman.hpp), so handlers are
// short; a task that reads a very large graph (a session's) or registers a very large partition
// pauses its I/O for that long; planning runs on a blocking_worker thread too
// (actors/master/master_planning.cpp).
// Timeouts run on a clock thread of their own (net/loop/deadline_clock.hpp), woken only for an
// earlier deadline.
//
// Busy polling: for `busy_poll` after an actor last handled a message, the loop polls its
// sockets without sleeping, yielding its core to any other runnable thread every few polls
// while no actor of the loop waits for its turn (busy_poller_yields). A
// reply that comes back within that window is read without waking a sleeping thread, which on
// a virtual machine whose idle cores halt costs tens of microseconds (an exit to the
// hypervisor). An idle task sleeps as before; a busy one spends its idle moments polling.
// Meanwhile other threads hand it their actors through memory (net/loop/loop_inbox.hpp), not
// through the loop's wake-up pipe.
#include <caf/actor_system_config.hpp>
#include <caf/fwd.hpp>
#include <chrono>
#include <cstddef>
#include <memory>

#include "graph/platform/busy_wait.hpp"

namespace caflow {

// Whether the loop's poller gives its core away at its `polls`th poll, with `waiting` actors
// queued on the loop and not yet run: every polls_per_yield polls, unless some wait. Yielding
// then would hand the core to another thread's poller while a message of this loop, from one of
// its actors to the next, waits out that poller's time slice.
constexpr bool busy_poller_yields(unsigned polls, size_t waiting) {
  return polls % polls_per_yield == 0 && waiting == 0;
}

// Something the loop looks at on every turn while it polls, besides its sockets: a same-host
// connection's rings (net/ring/ring_link.hpp), whose bytes arrive without the socket saying so.
class loop_polled {
 public:
  enum class result { idle, worked, gone };
  virtual ~loop_polled() = default;
  // Handles what arrived and pushes what waits; `gone` once it never will again (dropped).
  virtual result poll() = 0;
  // Whether the loop must go on polling though no actor ran lately (bytes wait to be pushed).
  virtual bool needs_polling() const = 0;
  // The loop starts (true) or stops (false) polling: a reader tells its writers whether to
  // ring the doorbell.
  virtual void loop_polls(bool polling) = 0;
};

// Whether `sys` runs its actors on a busy-polling loop (run_actors_on_network_loop with a
// window): only then may it write rings, whose full ones need a poller to push the rest.
bool loop_busy_polls(caf::actor_system& sys);
// The loop of `sys` polls `p` from now on. Call it on that loop's thread. False (and nothing
// polls `p`) when the loop does not busy-poll.
bool poll_on_loop(caf::actor_system& sys, std::shared_ptr<loop_polled> p);
// Something polled needs the loop to poll now (bytes wait to be pushed) though no actor ran:
// the poller starts if it had stopped. Call it on the loop's thread.
void keep_loop_polling(caf::actor_system& sys);
// A step (a master's) or a partition run (a worker's) starts (true) or ends (false) on this
// task. While one runs, and for step_window_factor x busy_poll after the last ends, the loop
// polls that much longer after each message: between a step's messages a task waits longer
// than busy_poll (a worker for its gradients' update while the ps applies them, the ps for the
// gradients while the workers compute, the next step's request), and a loop that slept by
// then is woken through a doorbell and the kernel, on a loaded 2-core host after 100-300 us.
// Measured on 2 cores: train_sync_overhead 0.52-0.55 -> 0.6-0.69, a 64-worker fan-out step
// 1.67 -> 1.33 ms. An idle task, or one that only exchanges heartbeats, still polls busy_poll
// after each message and then sleeps. Call it on the loop's thread; a no-op without polling.
void note_step_running(caf::actor_system& sys, bool running);

// REQUIRES: the middleman is loaded into `cfg` (configure_network does that).
// busy_poll == 0 turns polling off: the loop sleeps whenever it has nothing to do.
void run_actors_on_network_loop(caf::actor_system_config& cfg,
                                std::chrono::microseconds busy_poll = default_busy_poll);

}  // namespace caflow
