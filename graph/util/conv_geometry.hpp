#pragma once
// Window arithmetic of Conv2D and the pooling ops, and their attrs parsed and checked: one
// home for the shape functions (graph/ops/conv_ops.cpp) and every device's kernels.
#include <array>
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"
#include "graph/ir/graph_def.hpp"

namespace caflow {

// Graph construction and run time apply one set of rules and word their errors alike. Errors
// carry no node name: callers add it.

// Positions of the batch, row, column and depth dimensions in a data_format.
struct image_layout {
  int n, h, w, c;
};
constexpr image_layout image_layout_of(bool nchw) {
  return nchw ? image_layout{0, 2, 3, 1} : image_layout{0, 1, 2, 3};
}

enum class conv_padding { same, valid, explicit_ };

// Where a sliding window falls along one spatial dimension.
struct window_dim {
  int64_t out = 0;         // number of window positions
  int64_t pad_before = 0;  // implicit zeros before the first input element
  int64_t pad_after = 0;
};

// TensorFlow's GetWindowedOutputSize: VALID takes only windows inside the input, SAME gives
// ceil(in / stride) windows with pad_total = max((out - 1) * stride + k_eff - in, 0) split as
// pad_before = pad_total / 2, EXPLICIT uses the given pads. k_eff = (k - 1) * dilation + 1.
// An error states the sizes when the output would be negative.
status_or<window_dim> windowed_output_size(int64_t in, int64_t k, int64_t dilation,
                                           int64_t stride, conv_padding padding,
                                           int64_t explicit_before = 0,
                                           int64_t explicit_after = 0);

// Conv2D's attrs (strides, padding, explicit_paddings, data_format, dilations), checked.
struct conv2d_params {
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  conv_padding padding = conv_padding::same;
  std::array<int64_t, 4> explicit_pads{};  // top, bottom, left, right
  bool nchw = false;
};
status_or<conv2d_params> parse_conv2d_params(const node_def& n);

// The attrs of the pooling ops (ksize, strides, padding, data_format), checked.
struct pool_params {
  int64_t window_rows = 1, window_cols = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  conv_padding padding = conv_padding::valid;
  bool nchw = false;
};
status_or<pool_params> parse_pool_params(const node_def& n);

// One 2-D convolution (or pooling) over NHWC data, fully resolved.
struct conv2d_geometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Filter taps are this far apart in the input (atrous convolution); pooling windows use 1.
  int64_t dilation_rows = 1, dilation_cols = 1;

  // Elements of one im2col patch: filter_rows * filter_cols * in_depth.
  int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }
  // Output positions in all: batch * out_rows * out_cols.
  int64_t out_pixels() const { return batch * out_rows * out_cols; }
  tensor_shape output_shape() const { return {batch, out_rows, out_cols, out_depth}; }
};

// Conv2D's geometry for an NHWC input and an HWIO filter of these shapes (REQUIRES rank 4
// each), dilations included; the error names both shapes when the depths differ or a window
// does not fit.
status_or<conv2d_geometry> conv2d_geometry_for(const conv2d_params& p, const tensor_shape& input,
                                               const tensor_shape& filter);
// A pooling window's geometry for an NHWC input (REQUIRES rank 4): filter_* is the window,
// out_depth the input depth.
status_or<conv2d_geometry> pool_geometry_for(const pool_params& p, const tensor_shape& input);

// The NHWC shape held by an int32 vector of 4 non-negative sizes (Conv2DBackpropInput's
// input_sizes, AvgPoolGrad's orig_input_shape); the error names `what` and the value.
status_or<tensor_shape> image_shape_from_sizes(const tensor& sizes, const char* what);
}  // namespace caflow
