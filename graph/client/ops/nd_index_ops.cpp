// GatherNd, ScatterNd and SparseToDense: client functions (registered in
// graph/ops/nd_index_ops.cpp).
#include "graph/client/ops/nd_index_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

output gather_nd(const scope& s, const output& params, const output& indices) {
  return node_builder(s, "GatherNd").input(params).input(indices).finalize().out();
}

output scatter_nd(const scope& s, const output& indices, const output& updates,
                  const output& shape) {
  return node_builder(s, "ScatterNd").input(indices).input(updates).input(shape).finalize().out();
}

output sparse_to_dense(const scope& s, const output& sparse_indices, const output& output_shape,
                       const output& sparse_values, const output& default_value,
                       const sparse_to_dense_attrs& attrs) {
  return node_builder(s, "SparseToDense").input(sparse_indices).input(output_shape)
      .input(sparse_values).input(default_value)
      .attr("validate_indices", attrs.validate_indices).finalize().out();
}

}  // namespace ops
}  // namespace caflow
