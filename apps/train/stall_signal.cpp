#include "apps/train/stall_signal.hpp"

#include <atomic>
#include <csignal>

namespace caflow::train_app {
namespace {

// A signal handler takes no arguments, so the request lives at namespace scope; lock-free
// atomics are the only objects a handler may touch.
std::atomic<bool> g_stall_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stall_signal(int) { g_stall_requested.store(true, std::memory_order_relaxed); }

}  // namespace

void install_stall_signal() { std::signal(SIGUSR1, on_stall_signal); }

bool take_stall_request() { return g_stall_requested.exchange(false, std::memory_order_relaxed); }

}  // namespace caflow::train_app
