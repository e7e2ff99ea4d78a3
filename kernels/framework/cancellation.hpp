#pragma once
// Aborting a step: asynchronous kernels register a callback that wakes them; `cancel` runs
// every callback once. Registration after cancellation fails so the kernel aborts at once.
#include <atomic>
#include <functional>
#include <map>
#include <mutex>

namespace caflow {

class cancellation_manager {
 public:
  using token = int64_t;
  // Returns false (and registers nothing) when already cancelled.
  bool register_callback(token* out, std::function<void()> fn);
  // Returns false when the callback already ran or is running.
  bool deregister_callback(token t);
  void cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::mutex mu_;
  std::atomic<bool> cancelled_{false};
  token next_ = 0;
  std::map<token, std::function<void()>> callbacks_;
};

}  // namespace caflow
