#pragma once
// Helpers shared by the array ops' shape functions (graph/ops/array_ops.cpp, slicing_ops.cpp,
// padding_ops.cpp, reverse_ops.cpp). Not an API: the index rules that kernels share too live in
// graph/util/array_index_util.hpp.
#include <cstdint>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
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

}  // namespace caflow::array_op_util
