#pragma once
// Latency of a session's recent steps, for the console's `steps`: a bounded ring of step
// durations (the newest `capacity`), from which the median, the 99th percentile and the step
// rate are computed on demand. Owned by one actor; not thread-safe.
#include <chrono>
#include <cstdint>
#include <vector>

#include "net/admin_protocol.hpp"

namespace caflow {

class step_stats {
 public:
  using clock = std::chrono::steady_clock;

  explicit step_stats(size_t capacity = 1024) : capacity_(capacity) {}

  // A step that started at `started` is over now (`ok`: it succeeded).
  void record(clock::time_point started, bool ok, clock::time_point now = clock::now());
  latency_summary summary() const;

 private:
  struct sample {
    clock::time_point end;
    int64_t duration_us;
  };
  size_t capacity_;
  std::vector<sample> ring_;
  size_t next_ = 0;  // where the next sample goes once the ring is full
  int64_t count_ = 0;
  int64_t errors_ = 0;
};

}  // namespace caflow
