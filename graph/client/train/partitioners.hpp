#pragma once
// Partitioners as TensorFlow 1.x's tf.fixed_size_partitioner and
// tf.min_max_variable_partitioner: a partitioner maps a variable's full shape and dtype to the
// number of partitions along each dimension (1 everywhere but the partitioned axis), and
// create_partitioned_variable (partitioned_variable.hpp) makes that many shards.
//
//   auto emb = train::create_partitioned_variable(root, "emb", tensor_shape{1000000, 32},
//       dtype::float32, train::zeros_initializer(), train::fixed_size_partitioner(4));
//
// A partitioner only computes counts; whether the variable can be cut that way (at least one
// shard, no more shards than rows, one axis only) is checked where it is cut.
#include <cstdint>
#include <functional>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/types.hpp"

namespace caflow::train {

// Partitions per dimension of a variable of `shape` and `type`; an error when the partitioner
// cannot work with that shape (its axis out of range, a bad setting).
using partitioner =
    std::function<status_or<std::vector<int64_t>>(const tensor_shape& shape, dtype type)>;

// `num_shards` partitions along `axis`, but no more than the axis has (TF's rule: a
// [3, 8] variable with 4 shards gets 3). num_shards 0 yields 0 partitions, which
// create_partitioned_variable rejects naming the variable.
partitioner fixed_size_partitioner(int64_t num_shards, int axis = 0);

// As many partitions along `axis` as keep each at least `min_slice_size` bytes, at most
// `max_partitions` and at least 1 (TF's rule: slices_per_shard = max(1, floor(min_slice_size
// / bytes per slice along axis)); partitions = ceil(dim / slices_per_shard)). A float32
// [1000, 64] table has 256-byte rows, 1024 of them fit 256 KiB: one partition.
// bytes_per_string_element is TF's size of a string element; caflow has no string dtype, so
// it is kept for the signature only.
partitioner min_max_variable_partitioner(int64_t max_partitions = 1, int axis = 0,
                                         int64_t min_slice_size = 256 << 10,
                                         int64_t bytes_per_string_element = 16);

}  // namespace caflow::train
