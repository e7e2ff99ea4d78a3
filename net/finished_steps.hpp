#pragma once
// The steps that are over on a task, the most recent `capacity` of them. The worker adds each
// step it cleans up, before it tells the step's rendezvous actors; they, and the transports'
// senders, drop the values that still arrive or wait to leave for it. Shared by the worker, its
// rendezvous actors and its edge transport; thread-safe.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_set>

namespace caflow {

class finished_steps {
 public:
  explicit finished_steps(size_t capacity = 4096) : capacity_(capacity) {}
  void add(int64_t step_id);
  bool contains(int64_t step_id) const;

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  std::deque<int64_t> order_;
  std::unordered_set<int64_t> steps_;
};

}  // namespace caflow
