#pragma once
// What every device's BiasAdd, BiasAddGrad, Softmax and LogSoftmax kernels accept, checked
// once: a kernel that passes these checks may index the dims it relies on, and a rejected
// input gets the same message on every device.
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::nn {

// BiasAdd's and BiasAddGrad's data_format for a device whose kernels take only NHWC (the bias
// along the last dimension): NCHW is a valid value that fails as unimplemented on `device`.
// The CPU kernels take both and do not call this.
status check_bias_data_format(const kernel_construction& c, const char* device);

// BiasAdd: value has at least two dims and bias is a vector as long as value's last dim.
status check_bias_add_shapes(const tensor_shape& value, const tensor_shape& bias);

// BiasAddGrad: out_backprop has at least two dims (the bias gradient is its last dim).
status check_bias_add_grad_shape(const tensor_shape& out_backprop);

// Softmax and LogSoftmax: logits have at least one dim (the classes are the last).
status check_softmax_logits(const tensor_shape& logits);

}  // namespace caflow::nn
