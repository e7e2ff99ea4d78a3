#include "actors/master/step_stats.hpp"

#include <algorithm>
#include <cmath>

namespace caflow {

void step_stats::record(clock::time_point started, bool ok, clock::time_point now) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now - started).count();
  ++count_;
  if (!ok) ++errors_;
  if (capacity_ == 0) return;
  if (ring_.size() < capacity_) {
    ring_.push_back({now, us});
    return;
  }
  ring_[next_] = {now, us};
  next_ = (next_ + 1) % capacity_;
}

latency_summary step_stats::summary() const {
  latency_summary s;
  s.count = count_;
  s.errors = errors_;
  s.window = static_cast<int64_t>(ring_.size());
  if (ring_.empty()) return s;
  std::vector<int64_t> d;
  d.reserve(ring_.size());
  auto first = ring_.front().end, last = ring_.front().end;
  for (const sample& x : ring_) {
    d.push_back(x.duration_us);
    first = std::min(first, x.end);
    last = std::max(last, x.end);
  }
  // Nearest-rank percentiles: the smallest sample with at least p% of samples at or below it.
  auto rank = [&](double p) {
    const auto k = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(d.size())));
    const size_t i = std::clamp<size_t>(k, 1, d.size()) - 1;
    std::nth_element(d.begin(), d.begin() + static_cast<long>(i), d.end());
    return static_cast<double>(d[i]);
  };
  s.p50_us = rank(50);
  s.p99_us = rank(99);
  // Steps finished per second between the first and the last end in the window.
  const double span_s = std::chrono::duration<double>(last - first).count();
  if (ring_.size() >= 2 && span_s > 0) s.steps_per_s = static_cast<double>(ring_.size() - 1) / span_s;
  return s;
}

}  // namespace caflow
