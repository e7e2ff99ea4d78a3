#pragma once
// Checkpoint I/O, as TensorFlow's SaveV2 and RestoreV2: each op runs on one device and writes
// or reads one file (see graph/ir/checkpoint_file.hpp for the format). train::saver builds them.
//
//   auto prefix = ops::placeholder(root, dtype::uint8);            // fed path_tensor(path)
//   auto save = ops::save_v2(root, prefix, {"w", "b"}, {w, b});
//   auto wb = ops::restore_v2(root, prefix, {"w", "b"}, {dtype::float32, dtype::float32});
//
// Differences from TensorFlow, because caflow has no string dtype: `prefix` is a rank-1
// uint8 tensor holding the bytes of the file's path (checkpoint::path_tensor) and names the
// file itself, not a prefix of several; `tensor_names` and `shape_and_slices` are attrs (in TF
// they are string inputs, in practice always constants). Slices are not supported:
// every shape_and_slices entry must be "" (the whole tensor), as TF's saver writes them.
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// SaveV2: writes `tensors` under `tensor_names` to the file named by `prefix`, atomically.
operation save_v2(const scope& s, const output& prefix, const std::vector<std::string>& tensor_names,
                  const std::vector<output>& tensors);
// RestoreV2: the tensors stored under `tensor_names` in the file named by `prefix`, which must
// have the given dtypes. Errors name the file: not_found, or data_loss when it is corrupted.
std::vector<output> restore_v2(const scope& s, const output& prefix,
                               const std::vector<std::string>& tensor_names,
                               const std::vector<dtype>& dtypes);

}  // namespace caflow::ops
