#include "net/loop/local_step_answer.hpp"

#include "graph/platform/busy_wait.hpp"

namespace caflow {

void local_step_answer::set(status_or<run_step_reply> answer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (delivered_) return;
    delivered_ = true;
    answer_.emplace(std::move(answer));
    ready_.store(true, std::memory_order_release);
  }
  answered_.notify_one();  // no system call unless the session sleeps
}

void local_step_answer::deliver(run_step_reply reply) { set(std::move(reply)); }

void local_step_answer::deliver(const status& failed) {
  set(failed.ok() ? errors::internal("a step was answered with an OK status and no reply")
                  : failed);
}

status_or<run_step_reply> local_step_answer::wait(std::chrono::microseconds poll,
                                                  std::chrono::milliseconds patience) {
  auto ready = [this] { return ready_.load(std::memory_order_acquire); };
  if (!busy_wait(ready, poll)) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!answered_.wait_for(lock, patience, ready))
      return errors::deadline_exceeded("no answer within ", patience.count(), " ms");
  }
  return std::move(*answer_);
}

local_step_promise::~local_step_promise() {
  answer_->deliver(errors::unavailable("the master stopped before it answered the step"));
}

void local_step_promise::deliver(run_step_reply reply) { answer_->deliver(std::move(reply)); }

}  // namespace caflow
