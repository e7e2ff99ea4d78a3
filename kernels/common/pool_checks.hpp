#pragma once
// What every device's MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad kernels accept, checked
// once on top of graph/util/conv_geometry.hpp: a kernel that gets a geometry from here may
// rely on its inputs having the shapes it describes, and every device words a rejection alike.
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/util/conv_geometry.hpp"
#include "kernels/common/conv_checks.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

// The pooling attrs read into *p and checked when a kernel is built, so data_format NCHW
// (which no kernel implements) fails as unimplemented on `device` ("CPU", "GPU") when the
// graph is first run.
status read_pool_kernel_params(const kernel_construction& c, const char* device, pool_params* p);

// MaxPool and AvgPool: the window over a 4-D input; `what` names the input in errors.
status_or<conv2d_geometry> pool_kernel_geometry(const pool_params& p, const tensor_shape& input,
                                                const char* what);

// MaxPoolGrad: orig_output and grad both have the shape that pooling orig_input gives.
status_or<conv2d_geometry> max_pool_grad_geometry(const pool_params& p,
                                                  const tensor_shape& orig_input,
                                                  const tensor_shape& orig_output,
                                                  const tensor_shape& grad);

// AvgPoolGrad: orig_input_shape (host memory) holds an NHWC shape whose pooling gives grad's;
// the gradient has that shape.
status_or<window_gradient> avg_pool_grad_geometry(const pool_params& p,
                                                  const tensor& orig_input_shape,
                                                  const tensor_shape& grad);

}  // namespace caflow
