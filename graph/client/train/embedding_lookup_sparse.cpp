// tf.nn.embedding_lookup_sparse (TensorFlow 1.x): each distinct id is looked up once (Unique),
// its row repeated for every entry that names it, weighted, and the entries of each batch row
// combined. TF combines with SparseSegmentSum/Mean/SqrtN; caflow has UnsortedSegmentSum, so
// the mean and sqrtn divide the sums by per-row weight sums, which is the same arithmetic.
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/client/train/embedding_lookup.hpp"
#include "graph/client/train/initializers.hpp"

namespace caflow::nn {
namespace {

status check_sparse(const sparse_tensor& t, const char* what) {
  if (!t.indices.valid() || !t.values.valid() || !t.dense_shape.valid())
    return errors::invalid_argument("embedding_lookup_sparse: ", what, " has an invalid part");
  if (t.indices.type != dtype::int64 || t.dense_shape.type != dtype::int64)
    return errors::invalid_argument("embedding_lookup_sparse: ", what,
                                    "'s indices and dense_shape must be int64");
  return {};
}

// A per-entry vector [N] shaped to multiply or divide [N, row...] rows: [N, 1, ..., 1].
output as_column(const scope& s, const output& v, int row_rank) {
  std::vector<int64_t> dims(static_cast<size_t>(row_rank) + 1, 1);
  dims[0] = -1;
  return ops::reshape(s, v, dims);
}

}  // namespace

output embedding_lookup_sparse(const scope& s, const embedding_params& params,
                               const sparse_tensor& sp_ids,
                               const std::optional<sparse_tensor>& sp_weights,
                               const embedding_lookup_sparse_attrs& attrs) {
  if (!s.ok()) return {};
  status st = check_sparse(sp_ids, "sp_ids");
  if (st.ok() && sp_weights) st = check_sparse(*sp_weights, "sp_weights");
  if (st.ok() && attrs.combiner != "sum" && attrs.combiner != "mean" && attrs.combiner != "sqrtn")
    st = errors::invalid_argument("embedding_lookup_sparse: combiner must be 'sum', 'mean' or ",
                                  "'sqrtn', not '", attrs.combiner, "'");
  const partial_shape table = params.shards.empty() || !params.shards.front().valid()
                                  ? partial_shape::unknown()
                                  : s.shape_of(params.shards.front());
  if (st.ok() && !params.shards.empty() && !table.rank_known())
    st = errors::invalid_argument("embedding_lookup_sparse: the rank of params must be known");
  if (!st.ok()) {
    s.update_status(st);
    return {};
  }
  const scope sc = s.new_sub_scope("embedding_lookup_sparse");
  // indices[:, 0]: the batch row of each entry; dense_shape[0]: the number of rows.
  const output segment_ids =
      ops::strided_slice(sc, sp_ids.indices, {0, 0}, {0, 1}, {1, 1},
                         {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  const output num_rows =
      ops::strided_slice(sc, sp_ids.dense_shape, {0}, {1}, {1}, {.shrink_axis_mask = 1});
  const std::vector<output> uniq = ops::unique(sc, sp_ids.values, dtype::int32);
  if (!sc.ok()) return {};
  const output looked_up = embedding_lookup(
      sc, params, uniq[0],
      {.partition_strategy = attrs.partition_strategy, .max_norm = attrs.max_norm});
  if (!sc.ok()) return {};
  const int row_rank = table.rank() - 1;
  const dtype type = looked_up.type;
  output rows = ops::gather(sc, looked_up, uniq[1]);  // one row per entry

  // Per-entry weights: sp_weights' values, or ones.
  const output ones =
      ops::fill(sc, ops::shape(sc, sp_ids.values), train::scalar_constant(sc, 1, type));
  output weights = ones;
  if (sp_weights) {
    weights = sp_weights->values;
    if (weights.type != type) weights = ops::cast(sc, weights, type);
    rows = ops::mul(sc, rows, as_column(sc, weights, row_rank));
  }
  const output sums = ops::unsorted_segment_sum(sc, rows, segment_ids, num_rows);
  if (attrs.combiner == "sum") return sums;

  output denominators = attrs.combiner == "mean"
                            ? ops::unsorted_segment_sum(sc, weights, segment_ids, num_rows)
                            : ops::sqrt(sc, ops::unsorted_segment_sum(sc, ops::square(sc, weights),
                                                                      segment_ids, num_rows));
  // A row with no entries has sum 0 and would divide by 0: it divides by 1 instead and stays
  // zero. Rows with entries keep TF's quotient, whatever their weights sum to.
  const output entries = ops::unsorted_segment_sum(sc, ones, segment_ids, num_rows);
  denominators = ops::select(sc, ops::greater(sc, entries, train::scalar_constant(sc, 0, type)),
                             denominators, ops::ones_like(sc, denominators));
  return ops::real_div(sc, sums, as_column(sc, denominators, row_rank));
}

}  // namespace caflow::nn
