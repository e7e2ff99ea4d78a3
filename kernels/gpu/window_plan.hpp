#pragma once
// cuDNN pads both sides of a dimension alike, but TensorFlow's SAME padding puts the odd zero
// after (pad_total = 3 gives 1 before, 2 after), EXPLICIT may pad either side more, and VALID
// may leave trailing input unused. A window_plan gives cuDNN the symmetric part and says how
// much more the kernel pads into a copy of the input (zeros for convolutions, -inf for max
// pooling), so that cuDNN's windows start where TensorFlow's do and their number is
// TensorFlow's. No CUDA here: the plan is host arithmetic, tested without a GPU.
#include "graph/util/conv_geometry.hpp"
#include "kernels/gpu/nhwc_dims.hpp"

namespace caflow::gpu {

// How one spatial dimension's padding is done: `cudnn` on both sides by cuDNN, then
// `extra_before` and `extra_after` by copying the input into a larger frame.
struct dim_padding {
  int64_t cudnn = 0, extra_before = 0, extra_after = 0;
};

struct window_plan {
  dim_padding rows, cols;
  nhwc_dims input;   // the input as the kernel gets it
  nhwc_dims padded;  // the input as cuDNN sees it (== input when no copy is needed)
  bool needs_copy() const { return padded.rows != input.rows || padded.cols != input.cols; }
};

// REQUIRES g.out_rows >= 1 and g.out_cols >= 1 (a kernel with an empty output has nothing to
// ask cuDNN).
window_plan plan_window(const conv2d_geometry& g);

}  // namespace caflow::gpu
