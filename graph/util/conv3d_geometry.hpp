#pragma once
// The window arithmetic of Conv3D and its backprops, shared by their shape functions
// (graph/ops/conv3d_ops.cpp) and kernels (kernels/cpu/conv3d_kernels.cpp). Errors carry
// no node name: callers add it.
#include <array>
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/ir/graph_def.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow {

// strides and dilations (5 entries, 1 for batch and channels), padding, data_format.
struct conv3d_params {
  std::array<int64_t, 3> stride{}, dilation{};  // planes, rows, columns
  conv_padding padding = conv_padding::valid;
  bool channels_first = false;  // NCDHW
};
status_or<conv3d_params> parse_conv3d_params(const node_def& n);

// One 3-D convolution of NDHWC input by a [kd, kh, kw, in, out] filter, resolved.
struct conv3d_geometry {
  int64_t batch = 0, in_depth = 0, out_depth = 0;
  std::array<int64_t, 3> in{}, filter{}, out{}, stride{}, dilation{}, pad_before{};

  tensor_shape output_shape() const { return {batch, out[0], out[1], out[2], out_depth}; }
};

// The output shape for partially known `input` (in the params' data format) and `filter`.
status_or<partial_shape> conv3d_output_shape(const conv3d_params& p, const partial_shape& input,
                                             const partial_shape& filter);

// The geometry for known shapes: both 5-D; NCDHW is UNIMPLEMENTED.
status_or<conv3d_geometry> conv3d_geometry_for(const conv3d_params& p, const tensor_shape& input,
                                               const tensor_shape& filter);

}  // namespace caflow
