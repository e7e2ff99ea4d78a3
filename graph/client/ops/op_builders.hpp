#pragma once
// Builders shared by the ops:: files of element-wise ops: one node of `op` on its inputs, and
// the shape function of comparisons with an incompatible_shape_error attr. Not an API.
#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow::ops_detail {

inline output unary(const scope& s, const char* op, const output& x) {
  return node_builder(s, op).input(x).finalize().out();
}

inline output binary(const scope& s, const char* op, const output& x, const output& y) {
  return node_builder(s, op).input(x).input(y).finalize().out();
}

// Equal and NotEqual: with incompatible_shape_error = false, shapes that cannot broadcast give
// a scalar, so the output shape is only known when they can. Defined in math_ops.cpp.
status equality_shape(shape_context& c);

}  // namespace caflow::ops_detail
