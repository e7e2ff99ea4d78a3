#pragma once
// Reduction axes as a contract: one home for the reductions' shape functions
// (graph/ops/reduction_ops.cpp) and every device's kernels.
#include <bitset>

#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// The dims named by a reduction_indices tensor (int32 or int64, scalar or vector) for an input
// of rank `rank`. Errors name the offending axis and the rank, or the repeated axis. Shape
// inference and the kernels both use it, so they accept exactly the same axes.
status_or<std::bitset<max_rank>> reduction_axes(const tensor& axes, int rank);

}  // namespace caflow
