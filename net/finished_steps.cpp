#include "net/finished_steps.hpp"

namespace caflow {

void finished_steps::add(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!steps_.insert(step_id).second) return;
  order_.push_back(step_id);
  if (order_.size() > capacity_) {
    steps_.erase(order_.front());
    order_.pop_front();
  }
}

bool finished_steps::contains(int64_t step_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.count(step_id) > 0;
}

}  // namespace caflow
