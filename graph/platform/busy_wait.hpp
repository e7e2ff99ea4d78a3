#pragma once
// Polling before sleeping, for threads that wait on a reply which usually comes back within
// microseconds. On a virtual machine whose idle cores halt (this project's 2-core test VM),
// waking a sleeping thread costs tens of microseconds: an exit to the hypervisor. A thread that
// polls for a short window instead is still running when the reply comes. Used by the network
// loop (net/loop/loop_scheduler.hpp) and by a session's thread waiting for its step.
#include <sched.h>

#include <chrono>

namespace caflow {

// How long to poll before sleeping, unless told otherwise.
inline constexpr std::chrono::microseconds default_busy_poll{200};
// While a task runs steps, its loop polls this many times as long (net/loop/loop_scheduler.hpp,
// note_step_running): the gaps between one step's messages are longer than between a request
// and its reply. Windows of 0.5, 1, 2 and 5 ms gave train_sync_overhead 0.55, 0.61, 0.69, 0.64.
inline constexpr int step_window_factor = 10;

// Polls between yields of the core. A yield lets any runnable thread on this core go first, so
// polling only fills idle time; but a yield is a system call, and with another poller on the
// core a context switch. dist_step_latency_us, interleaved runs: a yield every poll 112-128 us,
// every 2nd 102-126 us, every 4th 95-104 us.
inline constexpr unsigned polls_per_yield = 4;

// Polls `ready` until it holds or `window` has passed; returns whether it holds.
template <class Ready>
bool busy_wait(Ready&& ready, std::chrono::microseconds window) {
  if (window.count() <= 0) return ready();
  const auto until = std::chrono::steady_clock::now() + window;
  for (unsigned polls = 1;; ++polls) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    if (polls % polls_per_yield == 0) sched_yield();
  }
}

}  // namespace caflow
