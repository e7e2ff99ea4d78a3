#pragma once
// The windows of MaxPoolWithArgmax and its gradients (NHWC only: TF's op has no data_format),
// shared by their shape functions (graph/ops/argmax_pool_ops.cpp) and kernels
// (kernels/cpu/argmax_pool_kernels.cpp). Errors carry no node name: callers add it.
#include "graph/core/shape.hpp"
#include "graph/ir/graph_def.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow {

// ksize and strides (4 entries, 1 for batch and depth) and padding of the node.
status_or<pool_params> parse_argmax_pool_params(const node_def& n);

// The pooled shape of a partially known NHWC input.
status_or<partial_shape> argmax_pool_output_shape(const pool_params& p, const partial_shape& in);

}  // namespace caflow
