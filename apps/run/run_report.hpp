#pragma once
// What caflow-run prints: each output's shape, sum, min and max, and the latency of the runs.
#include <string>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::run_app {

// "float32[1,256] sum=-3.18782 min=-0.47 max=0.51" (sum in double; bool counts trues).
std::string summarize(const tensor& t);

struct latency_summary {
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, mean_ms = 0;
};
// Nearest-rank percentiles of `ms` (not empty).
latency_summary summarize_latency(std::vector<double> ms);

// The file a fetched tensor is written to: "MobilenetV1/heatmap_2/BiasAdd:0" ->
// "MobilenetV1_heatmap_2_BiasAdd_0.npy".
std::string npy_file_name(const std::string& tensor_name);

}  // namespace caflow::run_app
