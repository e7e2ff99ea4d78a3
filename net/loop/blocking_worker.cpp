#include "net/loop/blocking_worker.hpp"

#include <utility>

#include "graph/platform/thread_name.hpp"

namespace caflow {

blocking_worker::blocking_worker(std::string name) : name_(std::move(name)) {}

blocking_worker::~blocking_worker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    jobs_.clear();  // their promises go unanswered: their askers are going too
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void blocking_worker::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
    // Started by the first job: an idle task keeps no thread for work it never gets.
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void blocking_worker::run() {
  name_this_thread(name_);
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace caflow
