#pragma once
// The window arithmetic of the 3-D pooling ops (MaxPool3D, AvgPool3D and their gradients),
// shared by their shape functions (graph/ops/pool3d_ops.cpp) and kernels
// (kernels/cpu/pool3d_kernels.cpp). Errors carry no node name: callers add it.
#include <array>
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/ir/graph_def.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow {

// ksize, strides (5 entries each, 1 for batch and channels), padding and data_format.
struct pool3d_params {
  std::array<int64_t, 3> window{}, stride{};  // planes, rows, columns
  conv_padding padding = conv_padding::valid;
  bool channels_first = false;  // NCDHW
};
status_or<pool3d_params> parse_pool3d_params(const node_def& n);

// One pooling over NDHWC data, resolved.
struct pool3d_geometry {
  int64_t batch = 0, depth = 0;  // depth: channels
  std::array<int64_t, 3> in{}, window{}, stride{}, out{}, pad_before{};

  tensor_shape input_shape() const { return {batch, in[0], in[1], in[2], depth}; }
  tensor_shape output_shape() const { return {batch, out[0], out[1], out[2], depth}; }
};

// The output shape for a partially known 5-D input in the params' data format (dims -1 when
// unknown).
status_or<partial_shape> pool3d_output_shape(const pool3d_params& p, const partial_shape& input);

// The geometry for a known NDHWC input (REQUIRES rank 5); NCDHW is UNIMPLEMENTED.
status_or<pool3d_geometry> pool3d_geometry_for(const pool3d_params& p, const tensor_shape& input);

}  // namespace caflow
