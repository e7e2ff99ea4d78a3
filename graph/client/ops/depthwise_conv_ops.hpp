#pragma once
// Depthwise convolution over NHWC images, with TensorFlow's names and semantics:
// DepthwiseConv2dNative and its two backprops. Each input channel is convolved with its own
// channel_multiplier filters; output channel c * multiplier + m comes from input channel c.
//
//   auto w = ops::variable(root, {3, 3, 32, 2}, dtype::float32);   // [rows, cols, in, multiplier]
//   auto y = ops::depthwise_conv2d_native(root, x, w);              // [?, h, w, 64]
//
// float32 and float64; strides, SAME/VALID/EXPLICIT padding and dilations as Conv2D. Only
// data_format "NHWC" has a CPU kernel ("NCHW" builds and fails as UNIMPLEMENTED when run).
#include "graph/client/ops/conv_ops.hpp"

namespace caflow::ops {

// The attrs are Conv2D's (conv2d_attrs).
output depthwise_conv2d_native(const scope& s, const output& input, const output& filter,
                               const conv2d_attrs& attrs = {});
// The gradient with respect to the input; `input_sizes` is its shape (an int32 vector of 4).
output depthwise_conv2d_native_backprop_input(const scope& s, const output& input_sizes,
                                              const output& filter, const output& out_backprop,
                                              const conv2d_attrs& attrs = {});
// The gradient with respect to the filter; `filter_sizes` is its shape (an int32 vector of 4).
output depthwise_conv2d_native_backprop_filter(const scope& s, const output& input,
                                               const output& filter_sizes,
                                               const output& out_backprop,
                                               const conv2d_attrs& attrs = {});

}  // namespace caflow::ops
