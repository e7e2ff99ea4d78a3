#pragma once
// Pooling over 5-D NDHWC volumes, with TensorFlow's names and semantics: MaxPool3D, AvgPool3D
// and their gradients MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad.
//
//   auto p = ops::max_pool3d(root, video, {.ksize = {1, 2, 2, 2, 1}, .strides = {1, 2, 2, 2, 1}});
//
// float32 and float64. Only data_format "NDHWC" has CPU kernels ("NCDHW" builds and fails as
// UNIMPLEMENTED when run).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct pool3d_attrs {
  std::vector<int> ksize{1, 2, 2, 2, 1};
  std::vector<int> strides{1, 2, 2, 2, 1};
  std::string padding = "VALID";  // "SAME" or "VALID"
  std::string data_format = "NDHWC";
};

// The maximum over each window.
output max_pool3d(const scope& s, const output& input, const pool3d_attrs& attrs = {});
// The mean over each window's elements inside the input.
output avg_pool3d(const scope& s, const output& input, const pool3d_attrs& attrs = {});
// MaxPool3D's gradient: each element of `grad` goes to the first maximum of its window.
output max_pool3d_grad(const scope& s, const output& orig_input, const output& orig_output,
                       const output& grad, const pool3d_attrs& attrs = {});
// AvgPool3D's gradient, spread evenly over each window; `orig_input_shape` is an int32 vector.
output avg_pool3d_grad(const scope& s, const output& orig_input_shape, const output& grad,
                       const pool3d_attrs& attrs = {});
// MaxPool3DGrad's gradient: for each window, `grad` (shaped like orig_input) at the window's
// first maximum; shaped like orig_output.
output max_pool3d_grad_grad(const scope& s, const output& orig_input, const output& orig_output,
                            const output& grad, const pool3d_attrs& attrs = {});

}  // namespace caflow::ops
