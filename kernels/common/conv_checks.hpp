#pragma once
// What every device's Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter kernels accept,
// checked once on top of graph/util/conv_geometry.hpp: a kernel that gets a geometry from here
// may rely on its inputs having the shapes it describes, and every device words a rejection
// alike.
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/util/conv_geometry.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

// Conv2D's attrs read into *p and checked when a kernel is built, so what the kernel does not
// implement (data_format NCHW; dilations other than 1 unless `dilations_supported`) fails as
// unimplemented on `device` ("CPU", "GPU") when the graph is first run.
status read_conv2d_kernel_params(const kernel_construction& c, const char* device,
                                 conv2d_params* p, bool dilations_supported = false);

// Conv2D: input and filter are 4-D and fit together.
status_or<conv2d_geometry> conv2d_kernel_geometry(const conv2d_params& p, const tensor_shape& input,
                                                  const tensor_shape& filter);

// A window op's gradient: its geometry and the shape of the gradient the op produces, which
// the op reads from a sizes input (input_sizes, filter_sizes, AvgPoolGrad's orig_input_shape).
struct window_gradient {
  conv2d_geometry geometry;
  tensor_shape shape;
};

// Conv2DBackpropInput: input_sizes (host memory) holds an NHWC shape that, with the filter,
// gives out_backprop's shape; the gradient has the input's shape.
status_or<window_gradient> conv2d_backprop_input_geometry(const conv2d_params& p,
                                                          const tensor& input_sizes,
                                                          const tensor_shape& filter,
                                                          const tensor_shape& out_backprop);

// Conv2DBackpropFilter: filter_sizes (host memory) holds an HWIO shape that, with the input,
// gives out_backprop's shape; the gradient has the filter's shape.
status_or<window_gradient> conv2d_backprop_filter_geometry(const conv2d_params& p,
                                                           const tensor_shape& input,
                                                           const tensor& filter_sizes,
                                                           const tensor_shape& out_backprop);

}  // namespace caflow
