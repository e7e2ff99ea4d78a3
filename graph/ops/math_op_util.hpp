#pragma once
// The shape function that Equal (graph/ops/math_ops.cpp) and NotEqual
// (graph/ops/math_binary_ops.cpp) share. Not an API.
#include "graph/core/status.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow::ops_detail {

// Equal and NotEqual: with incompatible_shape_error = false, shapes that cannot broadcast give
// a scalar, so the output shape is only known when they can. Defined in math_ops.cpp.
status equality_shape(shape_context& c);

}  // namespace caflow::ops_detail
