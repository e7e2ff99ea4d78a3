#pragma once
// Checkpoint I/O, as TensorFlow's SaveV2 and RestoreV2: each op runs on one device; SaveV2
// writes one file, RestoreV2 reads the files its prefix matches (see
// graph/ir/checkpoint_file.hpp for the format). train::saver builds them.
//
//   auto prefix = ops::placeholder(root, dtype::uint8);            // fed path_tensor(path)
//   auto save = ops::save_v2(root, prefix, {"w", "b"}, {w, b});
//   auto wb = ops::restore_v2(root, prefix, {"w", "b"}, {dtype::float32, dtype::float32});
//
// shape_and_slices (graph/ir/tensor_slice.hpp), one per tensor, or empty for all whole: ""
// saves or restores a whole tensor; "10 4 0,4:-" saves the tensor as rows [0,4) of a [10,4]
// one, or restores those rows, assembled from whatever slices the files hold (TF's
// RestoreSlice semantics): so a partitioned variable restores into another partitioning.
//
// Differences from TensorFlow, because caflow has no string dtype: `prefix` is a rank-1
// uint8 tensor holding the bytes of a path (checkpoint::path_tensor). SaveV2's names the file
// itself; RestoreV2's is a path or a glob pattern ("d/ckpt-5.shard-*-of-2", as TF's
// RestoreSlice file_pattern) and every matching file is read. `tensor_names` and
// `shape_and_slices` are attrs (in TF string inputs, in practice always constants).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// SaveV2: writes `tensors` under `tensor_names` to the file named by `prefix`, atomically.
// A tensor whose slice is given must be shaped as that slice.
operation save_v2(const scope& s, const output& prefix, const std::vector<std::string>& tensor_names,
                  const std::vector<output>& tensors,
                  const std::vector<std::string>& shape_and_slices = {});
// RestoreV2: the tensors (or slices) stored under `tensor_names` in the files `prefix`
// matches, which must have the given dtypes. Errors (checkpoint_reader.hpp) name the files and
// the tensor: not_found, data_loss when a file is corrupted or the slices leave a gap,
// invalid_argument when the dtype or the full shape differs.
std::vector<output> restore_v2(const scope& s, const output& prefix,
                               const std::vector<std::string>& tensor_names,
                               const std::vector<dtype>& dtypes,
                               const std::vector<std::string>& shape_and_slices = {});

}  // namespace caflow::ops
