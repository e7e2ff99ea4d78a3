#pragma once
// Indexing by coordinate tuples, with TensorFlow's names and semantics: GatherNd, ScatterNd
// and SparseToDense.
//
//   // params [[a, b], [c, d]]
//   auto g = ops::gather_nd(root, params, idx);     // idx [[1, 0], [0, 1]] -> [c, b]
//   auto s = ops::scatter_nd(root, idx, upd, shp);  // zeros of shp, upd added at idx
#include "graph/client/scope.hpp"

namespace caflow::ops {

// GatherNd: indices (int32 or int64) [..., K] pick slices params[i_0, .., i_{K-1}]; output
// indices.shape[:-1] + params.shape[K:]. An index out of range fails the step naming it.
output gather_nd(const scope& s, const output& params, const output& indices);

// ScatterNd: a tensor of `shape` (a vector of indices' dtype) of zeros with each slice of
// `updates` added at its index tuple (duplicates add up).
output scatter_nd(const scope& s, const output& indices, const output& updates,
                  const output& shape);

struct sparse_to_dense_attrs {
  bool validate_indices = true;  // indices must be sorted (row-major) and distinct
};
// SparseToDense: a tensor of `output_shape` (a vector of indices' dtype) holding
// `default_value` (a scalar) except at `sparse_indices` ([n, rank] coordinates; a vector of n
// positions or a scalar for a 1-D output), which get `sparse_values` ([n], or a scalar for all).
output sparse_to_dense(const scope& s, const output& sparse_indices, const output& output_shape,
                       const output& sparse_values, const output& default_value,
                       const sparse_to_dense_attrs& attrs = {});

}  // namespace caflow::ops
