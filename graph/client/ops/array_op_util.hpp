#pragma once
// Helpers shared by the array ops' shape functions and client functions
// (graph/client/ops/array_ops.cpp, graph/client/ops/slicing_ops.cpp). Not an API: the index rules that
// kernels share too live in graph/util/array_index_util.hpp.
#include <cstdint>
#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/scope.hpp"
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/ir/node_signature.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow::array_op_util {

// An error from the shared index rules, prefixed with the node and keeping its code.
inline status node_error(const shape_context& c, const status& st) {
  return st.with_context(describe_node(c.node()));
}

// The length of a vector input when its shape says so, else -1.
inline int64_t vector_length(const shape_context& c, int i) {
  const partial_shape& s = c.input(i);
  return s.rank_known() && s.rank() == 1 ? s.dim(0) : -1;
}

inline std::vector<int64_t> dims_of(const partial_shape& s, int rank) {
  return s.rank_known() ? s.dim_vector() : std::vector<int64_t>(rank, -1);
}

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
