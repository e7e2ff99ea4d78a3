#pragma once
// An NHWC image batch's sizes, shared by the launchers (.cu side) and the cuDNN kernels.
#include <cstdint>

namespace caflow::gpu {

// n images of rows x cols pixels of depth channels.
struct nhwc_dims {
  int64_t n = 0, rows = 0, cols = 0, depth = 0;
  int64_t elements() const { return n * rows * cols * depth; }
};

}  // namespace caflow::gpu
