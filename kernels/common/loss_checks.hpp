#pragma once
// What every device's softmax cross-entropy kernels accept, checked once: after these checks
// features is a [batch, classes] matrix and labels match it, so a kernel may index both.
// Label values are not checked here: whether a device can range-check them (the CPU does, the
// GPU leaves them on the device) is the kernel's business.
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"

namespace caflow::nn {

// SoftmaxCrossEntropyWithLogits: features is a matrix and labels have its shape.
status check_softmax_xent_shapes(const tensor_shape& features, const tensor_shape& labels);

// SparseSoftmaxCrossEntropyWithLogits: features is a matrix and labels a vector with one entry
// per row.
status check_sparse_softmax_xent_shapes(const tensor_shape& features, const tensor_shape& labels);

}  // namespace caflow::nn
