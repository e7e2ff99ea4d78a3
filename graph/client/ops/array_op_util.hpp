#pragma once
// Helpers shared by the array ops' client functions (graph/client/ops/array_ops.cpp,
// slicing_ops.cpp, padding_ops.cpp, reverse_ops.cpp, space_batch_ops.cpp, split_v_ops.cpp).
// Not an API: the shape functions' helpers are in graph/ops/array_op_util.hpp.
#include <cstdint>
#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/scope.hpp"
#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"

namespace caflow::array_op_util {

// Index constants for the integer overloads. They are named like any Const of the caller's
// name scope, not after the op: a with_op_name scope names the op itself.
inline output index_constant(const scope& s, const std::vector<int64_t>& values,
                             const tensor_shape& shape) {
  return ops::constant(s.new_sub_scope(""), tensor::from_vector<int64_t>(values, shape));
}

inline output index_vector(const scope& s, const std::vector<int64_t>& values) {
  return index_constant(s, values, tensor_shape{static_cast<int64_t>(values.size())});
}

inline output int32_scalar(const scope& s, int value) {
  return ops::constant(s.new_sub_scope(""), tensor::scalar<int32_t>(value));
}

}  // namespace caflow::array_op_util
