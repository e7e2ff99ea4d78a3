#pragma once
// tf.nn.embedding_lookup and tf.nn.embedding_lookup_sparse (TensorFlow 1.x): rows of a table
// that may be split into shards (a partitioned_variable, or any list of tensors whose rows
// follow one another), gathered where each shard lives.
//
//            ids ─▶ flatten ─▶ shard of each id, id within it ("mod" or "div")
//                                 │ DynamicPartition (ids, and their positions)
//               ┌─────────────────┼──────────────────┐
//   GatherV2(part_0, ids_0)  GatherV2(part_1, ids_1)  ...   each colocated with its shard
//               └─────────────────┼──────────────────┘
//                       DynamicStitch(positions) ─▶ Reshape to ids.shape + row shape
//
// On a cluster each GatherV2 runs on its shard's ps task, so only the rows looked up cross
// the network. Nodes are named under "embedding_lookup/" ("embedding_lookup_sparse/").
#include <optional>
#include <string>
#include <vector>

#include "graph/client/train/partitioned_variable.hpp"

namespace caflow::nn {

// The table a lookup reads: its shards in row order (one for an unpartitioned table). The
// constructors are implicit so that a tensor, a variable, a list of shards or a partitioned
// variable can be passed as params, as TF's embedding_lookup accepts each.
struct embedding_params {
  std::vector<output> shards;

  embedding_params(const output& whole) : shards{whole} {}                   // NOLINT
  embedding_params(std::vector<output> parts) : shards(std::move(parts)) {}  // NOLINT
  embedding_params(const train::variable& v) : shards{v.ref} {}              // NOLINT
  embedding_params(const train::partitioned_variable& v);                    // NOLINT
};

struct embedding_lookup_attrs {
  // How ids map to shards of n: "mod" puts id on shard id % n as row id / n; "div" gives each
  // shard a contiguous range of ids, the first rows % n shards one more (as
  // partitioned_variable cuts rows). With one shard both are a plain gather.
  std::string partition_strategy = "mod";
  // TF's max_norm (clipping looked-up rows) is not supported: it must stay unset.
  std::optional<double> max_norm = std::nullopt;
};

// params[ids]: shape ids.shape + the rows' shape, ids int32 or int64 of any shape. An id
// outside the table fails the step in the node that meets it: GatherV2 on the shard
// ("indices[0] = 7 is not in [0, 3)"), or, with "div", DynamicPartition for an id beyond
// every shard's range or a negative one. Errors at construction (an unknown strategy,
// max_norm, no shards, ids not integers) are kept in the scope.
output embedding_lookup(const scope& s, const embedding_params& params, const output& ids,
                        const embedding_lookup_attrs& attrs = {});

// TF's SparseTensor as three tensors.
struct sparse_tensor {
  output indices;      // int64 [N, rank]
  output values;       // [N]
  output dense_shape;  // int64 [rank]
};

struct embedding_lookup_sparse_attrs {
  std::string partition_strategy = "mod";
  // "sum", "mean" (TF 1.x's default) or "sqrtn": per row of sp_ids, the (weighted) sum of its
  // ids' rows, divided by the sum of the weights or by the square root of the sum of squares.
  std::string combiner = "mean";
  std::optional<double> max_norm = std::nullopt;
};

// One combined row per row of the batch: sp_ids is a [batch, k] SparseTensor of int64 ids
// (indices sorted by row, as TF requires), sp_weights optional weights with the same indices
// (all 1 when absent). Result: [dense_shape[0]] + the rows' shape. Each distinct id is
// looked up once (Unique); a row with no ids gives zeros.
output embedding_lookup_sparse(const scope& s, const embedding_params& params,
                               const sparse_tensor& sp_ids,
                               const std::optional<sparse_tensor>& sp_weights = std::nullopt,
                               const embedding_lookup_sparse_attrs& attrs = {});

}  // namespace caflow::nn
