// CAFLOW_NODE_TIMES: where a partition's steps spend their wall time, node by node (a kernel's
// host part, which on a GPU includes any wait for the device; an asynchronous node's wait for
// its value) and recorded segment by segment. A developer's aid with no cost when unset.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>

#include "actors/executor/executor.hpp"
#include "actors/executor/executor_items.hpp"
#include "graph/core/log.hpp"
#include "graph/core/device_name.hpp"

namespace caflow {

std::unique_ptr<executor::node_times> executor::make_node_times(size_t nodes, size_t segments) {
  const char* on = std::getenv("CAFLOW_NODE_TIMES");
  if (on == nullptr || *on == '\0' || std::string_view(on) == "0") return nullptr;
  return std::make_unique<node_times>(nodes, segments);
}

namespace {
int64_t since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}
}  // namespace

void executor::add_node_time(int id, std::chrono::steady_clock::time_point start) {
  times_->ns[id].fetch_add(since(start), std::memory_order_relaxed);
  times_->runs[id].fetch_add(1, std::memory_order_relaxed);
}

void executor::add_segment_time(int k, std::chrono::steady_clock::time_point start) {
  times_->segment_ns[k].fetch_add(since(start), std::memory_order_relaxed);
  times_->segment_runs[k].fetch_add(1, std::memory_order_relaxed);
}

// The 25 nodes with the most time in all, then the segments: "name (Op) runs avg_us total_ms".
void executor::log_node_times() const {
  std::vector<int> ids;
  for (size_t i = 0; i < items_.size(); ++i)
    if (times_->runs[i].load() > 0) ids.push_back(static_cast<int>(i));
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return times_->ns[a].load() > times_->ns[b].load(); });
  std::ostringstream out;
  out << "node times on " << dev_.name() << " (" << items_.size() << " nodes):";
  for (size_t r = 0; r < ids.size() && r < 25; ++r) {
    const int id = ids[r];
    const int64_t runs = times_->runs[id].load(), ns = times_->ns[id].load();
    out << "\n  " << graph_->node(id).name() << " (" << graph_->node(id).def->op << ") runs "
        << runs << " avg " << ns / runs / 1000 << " us total " << ns / 1000000 << " ms";
  }
  const size_t segments = capture_ ? capture_->segments.size() : 0;
  for (size_t k = 0; k < segments; ++k) {
    const int64_t runs = times_->segment_runs[k].load(), ns = times_->segment_ns[k].load();
    if (runs > 0)
      out << "\n  segment " << k << " (" << capture_->segments[k].order.size() << " nodes) runs "
          << runs << " avg " << ns / runs / 1000 << " us";
  }
  write_log(log_level::warn, task_of_device(dev_.name()), out.str());
}

}  // namespace caflow
