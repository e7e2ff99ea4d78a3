#pragma once
// 3-D convolution over NDHWC volumes, with TensorFlow's names and semantics: Conv3D,
// Conv3DBackpropInputV2 and Conv3DBackpropFilterV2. float32 and float64; strides, SAME/VALID
// padding and dilations. Only data_format "NDHWC" has CPU kernels.
//
//   auto y = ops::conv3d(root, clip, w, {.strides = {1, 1, 2, 2, 1}});  // w [kd, kh, kw, in, out]
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct conv3d_attrs {
  std::vector<int> strides{1, 1, 1, 1, 1};
  std::string padding = "SAME";
  std::string data_format = "NDHWC";
  std::vector<int> dilations{1, 1, 1, 1, 1};
};

output conv3d(const scope& s, const output& input, const output& filter,
              const conv3d_attrs& attrs = {});
// The gradient with respect to the input; `input_sizes` is its shape (an int32 vector of 5).
output conv3d_backprop_input(const scope& s, const output& input_sizes, const output& filter,
                             const output& out_backprop, const conv3d_attrs& attrs = {});
// The gradient with respect to the filter; `filter_sizes` is its shape (an int32 vector of 5).
output conv3d_backprop_filter(const scope& s, const output& input, const output& filter_sizes,
                              const output& out_backprop, const conv3d_attrs& attrs = {});

}  // namespace caflow::ops
