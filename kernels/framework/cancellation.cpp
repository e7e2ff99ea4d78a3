#include "kernels/framework/cancellation.hpp"

namespace caflow {

bool cancellation_manager::register_callback(token* out, std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_.load(std::memory_order_relaxed)) return false;
  *out = next_++;
  callbacks_.emplace(*out, std::move(fn));
  return true;
}

bool cancellation_manager::deregister_callback(token t) {
  std::lock_guard<std::mutex> lock(mu_);
  return callbacks_.erase(t) > 0;
}

void cancellation_manager::cancel() {
  std::map<token, std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.exchange(true)) return;
    todo.swap(callbacks_);
  }
  for (auto& [t, fn] : todo) fn();
}

}  // namespace caflow
