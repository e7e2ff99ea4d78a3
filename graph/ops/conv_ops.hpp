#pragma once
// Convolution and pooling over NHWC images, with TensorFlow's op names and semantics:
// Conv2D and its two backprops, MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad.
//
//   auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 28, 28, 1}});
//   auto w = ops::variable(root, {5, 5, 1, 32}, dtype::float32);        // [rows, cols, in, out]
//   auto h = ops::conv2d(root, x, w);                                     // [?, 28, 28, 32]
//   auto p = ops::max_pool(root, h, {});                                  // [?, 14, 14, 32]
//
// Only data_format "NHWC" and dilations of 1 have CPU kernels: graphs with "NCHW" or dilated
// filters build (their shapes are inferred) and fail with UNIMPLEMENTED when run.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/scope.hpp"

namespace caflow {

// Window arithmetic shared by the shape functions and the CPU kernels, so graph construction
// and run time apply one set of rules and word their errors alike. Errors carry no node name.

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

  // Elements of one im2col patch: filter_rows * filter_cols * in_depth.
  int64_t patch_size() const { return filter_rows * filter_cols * in_depth; }
  // Output positions in all: batch * out_rows * out_cols.
  int64_t out_pixels() const { return batch * out_rows * out_cols; }
  tensor_shape output_shape() const { return {batch, out_rows, out_cols, out_depth}; }
};

// Conv2D's geometry for an NHWC input and an HWIO filter of these shapes (REQUIRES rank 4
// each); the error names both shapes when the depths differ or a window does not fit.
status_or<conv2d_geometry> conv2d_geometry_for(const conv2d_params& p, const tensor_shape& input,
                                               const tensor_shape& filter);
// A pooling window's geometry for an NHWC input (REQUIRES rank 4): filter_* is the window,
// out_depth the input depth.
status_or<conv2d_geometry> pool_geometry_for(const pool_params& p, const tensor_shape& input);

// The NHWC shape held by an int32 vector of 4 non-negative sizes (Conv2DBackpropInput's
// input_sizes, AvgPoolGrad's orig_input_shape); the error names `what` and the value.
status_or<tensor_shape> image_shape_from_sizes(const tensor& sizes, const char* what);

}  // namespace caflow

namespace caflow::ops {

struct conv2d_attrs {
  std::vector<int> strides{1, 1, 1, 1};
  std::string padding = "SAME";  // "SAME", "VALID" or "EXPLICIT"
  std::string data_format = "NHWC";
  std::vector<int> dilations{1, 1, 1, 1};
  // With padding "EXPLICIT": 8 ints, (before, after) for each of the 4 dimensions in
  // data_format order; the batch and depth pairs must be 0.
  std::vector<int> explicit_paddings{};
};

// Cross-correlation of `input` [batch, rows, cols, in_depth] with `filter`
// [filter_rows, filter_cols, in_depth, out_depth] (float32 or float64), as tf.nn.conv2d.
output conv2d(const scope& s, const output& input, const output& filter,
              const conv2d_attrs& attrs = {});
// The gradient of Conv2D with respect to its input; `input_sizes` is the input's shape (an
// int32 vector of 4).
output conv2d_backprop_input(const scope& s, const output& input_sizes, const output& filter,
                             const output& out_backprop, const conv2d_attrs& attrs = {});
// The gradient of Conv2D with respect to its filter; `filter_sizes` is the filter's shape (an
// int32 vector of 4).
output conv2d_backprop_filter(const scope& s, const output& input, const output& filter_sizes,
                              const output& out_backprop, const conv2d_attrs& attrs = {});

struct pool_attrs {
  std::vector<int> ksize{1, 2, 2, 1};
  std::vector<int> strides{1, 2, 2, 1};
  std::string padding = "VALID";  // "SAME" or "VALID"
  std::string data_format = "NHWC";
};

// The maximum over each window (float32, float64, int32, int64, uint8), as tf.nn.max_pool.
output max_pool(const scope& s, const output& value, const pool_attrs& attrs = {});
// MaxPool's gradient: each element of `grad` goes to the first maximum of its window in
// `orig_input` (row-major order within the window).
output max_pool_grad(const scope& s, const output& orig_input, const output& orig_output,
                     const output& grad, const pool_attrs& attrs = {});
// The mean over each window (float32, float64); with SAME padding a window's mean is over its
// elements inside the input only.
output avg_pool(const scope& s, const output& value, const pool_attrs& attrs = {});
// AvgPool's gradient: each element of `grad` is spread evenly over its window's elements
// inside the input; `orig_input_shape` is an int32 vector of 4.
output avg_pool_grad(const scope& s, const output& orig_input_shape, const output& grad,
                     const pool_attrs& attrs = {});

}  // namespace caflow::ops
