#pragma once
// --model wide-deep: a click-through model shaped as TF's DNNLinearCombinedClassifier, over
// `columns` categorical columns of hashed feature ids (int64 [batch, columns], ctr_data.hpp):
//
//   deep   column c's id ─▶ embedding_c [rows, dim] ─┐
//                                ...                 ├─ concat [batch, columns*dim]
//          column C's id ─▶ embedding_C [rows, dim] ─┘   ─▶ dense `hidden` ReLU ─▶ dense 1
//   wide   every column's id ─▶ linear [columns*rows, 1] (column c's id at row c*rows + id),
//          summed: a weight per (column, id), as TF's linear_model over the same columns
//   logit = deep + wide; loss: sigmoid cross entropy; score: sigmoid(logit)
//
// Every table is a partitioned variable (train::create_partitioned_variable) with one shard
// per ps task, so replica_device_setter spreads each over the ps tasks, and is read with
// nn::embedding_lookup ("mod"): each shard's gather runs on its own ps task and only the rows
// looked up cross the network. Embeddings start as truncated normals of stddev 1/sqrt(dim)
// (TF's embedding_column), the linear weights at zero, the dense kernels Glorot-uniform.
#include "apps/train/model.hpp"

namespace caflow::train_app {

// params.tables: the `columns` embedding tables, then the linear table; params.weights: the
// hidden and output layers' kernel and bias. `ps_tasks` (0 without a cluster: 1 shard) is the
// number of shards per table.
model_params create_wide_deep_params(const scope& s, const wide_deep_flags& f, int ps_tasks,
                                     uint64_t seed);

// A tower over params: inputs int64 [batch, columns], labels int32 [batch] (0 or 1).
tower build_wide_deep_tower(const scope& s, const model_params& params);

// tf.nn.sigmoid_cross_entropy_with_logits: per element, max(x, 0) - x * z + log(1 + exp(-|x|)),
// which neither overflows nor loses precision for large |x|. labels (z) and logits (x) of the
// same float type and shape.
output sigmoid_cross_entropy_with_logits(const scope& s, const output& labels,
                                         const output& logits);

}  // namespace caflow::train_app
