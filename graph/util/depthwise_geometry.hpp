#pragma once
// The geometry of DepthwiseConv2dNative and its backprops, shared by their shape functions
// (graph/ops/depthwise_conv_ops.cpp) and kernels (kernels/cpu/depthwise_conv_*.cpp).
// Errors carry no node name: callers add it.
#include <cstdint>

#include "graph/util/conv_geometry.hpp"

namespace caflow {

// One depthwise convolution over NHWC data with an [rows, cols, depth, multiplier] filter.
struct depthwise_geometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, multiplier = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_left = 0;

  int64_t out_depth() const { return depth * multiplier; }
  tensor_shape output_shape() const { return {batch, out_rows, out_cols, out_depth()}; }
};

// The output shape for partially known `input` and `filter` (dims -1 when unknown): the error
// names both shapes when the depths differ or a window does not fit.
status_or<partial_shape> depthwise_output_shape(const conv2d_params& p,
                                                const partial_shape& input,
                                                const partial_shape& filter);

// The resolved geometry for known shapes: both 4-D, NHWC only (NCHW is UNIMPLEMENTED).
status_or<depthwise_geometry> depthwise_geometry_for(const conv2d_params& p,
                                                     const tensor_shape& input,
                                                     const tensor_shape& filter);

}  // namespace caflow
