#pragma once
// Convolution and pooling over NHWC images, with TensorFlow's op names and semantics:
// Conv2D and its two backprops, MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad.
//
//   auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 28, 28, 1}});
//   auto w = ops::variable(root, {5, 5, 1, 32}, dtype::float32);        // [rows, cols, in, out]
//   auto h = ops::conv2d(root, x, w);                                     // [?, 28, 28, 32]
//   auto p = ops::max_pool(root, h, {});                                  // [?, 14, 14, 32]
//
// Only data_format "NHWC" has CPU kernels: graphs with "NCHW" build (their shapes are
// inferred) and fail with UNIMPLEMENTED when run. Conv2D and its backprops take dilations on
// the CPU; the GPU kernels do not (UNIMPLEMENTED there).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

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
// MaxPoolGrad's gradient in `grad` (shaped like orig_input): each window of the output takes
// grad at the window's first maximum, shaped like orig_output.
output max_pool_grad_grad(const scope& s, const output& orig_input, const output& orig_output,
                          const output& grad, const pool_attrs& attrs = {});
// The mean over each window (float32, float64); with SAME padding a window's mean is over its
// elements inside the input only.
output avg_pool(const scope& s, const output& value, const pool_attrs& attrs = {});
// AvgPool's gradient: each element of `grad` is spread evenly over its window's elements
// inside the input; `orig_input_shape` is an int32 vector of 4.
output avg_pool_grad(const scope& s, const output& orig_input_shape, const output& grad,
                     const pool_attrs& attrs = {});

}  // namespace caflow::ops
