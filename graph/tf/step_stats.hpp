#pragma once
// A traced step as TensorFlow's RunMetadata (graph/tf/proto/step_stats.proto): one
// DeviceStepStats per device, one NodeExecStats per node run there, which TensorBoard's graph
// tab shows as compute time per node (summary_writer::add_run_metadata).
#include <cstdint>
#include <string>
#include <vector>

namespace caflow::tf {

struct executed_node {
  std::string device;  // full name, "/job:worker/replica:0/task:0/device:CPU:0"
  std::string node;
  std::string op;
  int64_t start_us = 0;  // wall clock, microseconds since the epoch
  int64_t duration_us = 0;
};

// A serialized RunMetadata holding `nodes`, devices in name order, nodes by start time.
std::string serialized_run_metadata(const std::vector<executed_node>& nodes);

}  // namespace caflow::tf
