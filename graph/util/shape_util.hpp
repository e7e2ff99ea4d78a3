#pragma once
// Reshape and Range as contracts: one home for the shape functions
// (graph/ops/shape_ops.cpp) and every device's kernels.
#include <cstdint>
#include <span>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"

namespace caflow {

// Reshape's output shape for an input of `num_elements` elements and the requested `dims`
// (at most one -1, inferred). Errors state the requested shape and both element counts.
status_or<tensor_shape> resolve_reshape(int64_t num_elements, std::span<const int64_t> dims);
// Checks requested Reshape dims on their own: rank, at most one -1, nothing below -1.
status check_reshape_dims(std::span<const int64_t> dims);

// The number of elements Range(start, limit, delta) yields, or why it yields none (delta 0,
// a limit on the wrong side of start, non-finite bounds, more than int64 elements).
// Defined for float, double, int32_t and int64_t.
template <class T>
status_or<int64_t> range_length(T start, T limit, T delta);

}  // namespace caflow
