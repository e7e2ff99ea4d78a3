#include "actors/executor/trace_recorder.hpp"

#include <algorithm>

namespace caflow {

trace_recorder::trace_recorder(std::string task, size_t capacity)
    : task_(std::move(task)), capacity_(capacity) {}

void trace_recorder::set_enabled(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  if (on && !on_.load(std::memory_order_relaxed)) {
    events_.clear();
    dropped_ = 0;
  }
  on_.store(on, std::memory_order_relaxed);
}

void trace_recorder::record(const std::shared_ptr<const node_trace_info>& node, int64_t step_id,
                            clock::time_point start, clock::time_point end, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (events_.size() >= capacity_) {
    ++dropped_;
    return;
  }
  events_.push_back({node, step_id, start, end, bytes});
}

std::vector<trace_event> trace_recorder::collect() const {
  using namespace std::chrono;
  // steady -> system: both clocks read back to back; the error is the gap between the reads.
  const auto steady_now = clock::now();
  const auto system_now = system_clock::now();
  const int64_t offset_us = duration_cast<microseconds>(system_now.time_since_epoch()).count() -
                            duration_cast<microseconds>(steady_now.time_since_epoch()).count();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<trace_event> out;
  out.reserve(events_.size());
  for (const event& e : events_) {
    trace_event t;
    t.task = task_;
    t.device = e.node->device;
    t.node = e.node->name;
    t.op = e.node->op;
    t.peer = e.node->peer;
    t.step_id = e.step_id;
    t.start_us = duration_cast<microseconds>(e.start.time_since_epoch()).count() + offset_us;
    t.dur_us = duration_cast<microseconds>(e.end - e.start).count();
    t.bytes = e.bytes;
    t.key = e.node->key;
    out.push_back(std::move(t));
  }
  return out;
}

size_t trace_recorder::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

int64_t trace_recorder::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void recv_waits::add(int64_t step_id, int node_id,
                     const std::shared_ptr<const node_trace_info>& node) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.push_back({step_id, node_id, {step_id, node, std::chrono::steady_clock::now()}});
}

void recv_waits::remove(int64_t step_id, int node_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(waiting_.begin(), waiting_.end(), [&](const entry& e) {
    return e.step_id == step_id && e.node_id == node_id;
  });
  if (it == waiting_.end()) return;
  *it = std::move(waiting_.back());
  waiting_.pop_back();
}

std::vector<waiting_recv> recv_waits::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<waiting_recv> out;
  out.reserve(waiting_.size());
  for (const entry& e : waiting_) out.push_back(e.what);
  return out;
}

}  // namespace caflow
