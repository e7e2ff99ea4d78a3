#pragma once
// A variable split along dimension 0 into shards, as TensorFlow 1.x's PartitionedVariable
// (tf.get_variable with a partitioner): each shard is an ordinary variable named
// "<name>/part_<i>", so replica_device_setter places the shards on ps tasks in turn, and a
// lookup reads only the rows it needs from each shard (nn::embedding_lookup).
//
//   auto emb = train::create_partitioned_variable(root, "emb", tensor_shape{10, 4},
//       dtype::float32, train::zeros_initializer(), train::fixed_size_partitioner(3));
//   // emb/part_0 [4, 4] at row 0, emb/part_1 [3, 4] at row 4, emb/part_2 [3, 4] at row 7
//   auto whole = emb.as_tensor(root);   // ConcatV2 of the shards: [10, 4]
//
// Shard i of n holds rows / n rows, plus one for the first rows % n shards (TF's rule, which
// the "div" lookup strategy relies on).
//
// Each shard's VariableV2 carries attr "_save_slice_info" = {full name, shape_and_slice}
// ("emb", "10 4 4,3:-"; graph/ir/tensor_slice.hpp), TF's SaveSliceInfo. From it train::saver
// saves the shard under the full name as that slice (so a checkpoint restores into any other
// number of shards, or into one plain variable, and back), and the console shows the shards
// as one variable. Pass the shards to the saver like any variables: vars.add(emb.shards).
#include <string>
#include <string_view>
#include <vector>

#include "graph/client/train/partitioners.hpp"
#include "graph/client/train/variables.hpp"

namespace caflow::train {

struct partitioned_variable {
  std::string name;    // the name scope of the shards: "emb" for "emb/part_0"
  tensor_shape shape;  // the full shape
  dtype type = dtype::invalid;
  std::vector<variable> shards;  // in row order
  std::vector<int64_t> offsets;  // shard i's first row in the full variable

  bool valid() const { return !shards.empty(); }
  int num_shards() const { return static_cast<int>(shards.size()); }
  // The whole value read at once: the shards concatenated along dimension 0 (an Identity of
  // the only shard when there is one). Nodes are added through `s`.
  output as_tensor(const scope& s) const;
};

// Like tf.get_variable(name, shape, dtype, initializer, partitioner=...): `partitioner` says how
// many shards along dimension 0; each shard's initial value is `init` called with the shard's
// shape under "<name>/part_<i>/Initializer/". A deterministic initializer (constant, zeros,
// ones) thus gives every shard exactly its rows of the full value; a random one draws each
// shard on its own, as TF does. (Initializers that depend on the full shape, as Glorot's fans,
// see the shard's shape: caflow's initializers have no partition_info.)
// Errors, each naming the variable, are kept in the scope and return an invalid value: a
// shape of rank 0, partitions that do not match the rank, 0 shards, more shards than rows, and
// (unimplemented) partitioning along an axis other than 0.
partitioned_variable create_partitioned_variable(const scope& s, std::string_view name,
                                                 const tensor_shape& shape, dtype type,
                                                 const initializer& init,
                                                 const partitioner& partition,
                                                 const variable_attrs& attrs = {});

// With a full initial value instead (TF's Tensor initializer): each shard is initialized from
// its Slice of `initial_value`, whose shape must be fully known.
partitioned_variable create_partitioned_variable(const scope& s, std::string_view name,
                                                 const output& initial_value,
                                                 const partitioner& partition,
                                                 const variable_attrs& attrs = {});

// Shard sizes along dimension 0 for `rows` rows in `n` shards (n >= 1): rows / n each, one
// more for the first rows % n.
std::vector<int64_t> shard_rows(int64_t rows, int64_t n);

}  // namespace caflow::train
