#pragma once
// Checkpoint files on disk: the bytes of one file are a tensor-list archive (see
// serialization.hpp: a CRC-32 envelope around a Boost.Serialization payload), written
// atomically.
//
// A checkpoint of step S in directory D is a set of files:
//
//   D/ckpt-<S>.shard-<i>-of-<n>   one per saving device (each ps task writes its own variables)
//   D/ckpt-<S>.index              written last, after every shard: its presence makes the
//                                 checkpoint complete. Holds the step and the shard count.
//
// Each file maps entry keys to tensors (see entry_key): a whole tensor under its name, a slice
// of one (a partitioned variable's shard) under "<name>:<shape_and_slice>", so several slices
// of one tensor may share a file. checkpoint_reader.hpp reads them back, slices assembled.
//
// Every file is written to "<name>.tmp-<pid>-<n>", fsync'ed, renamed over <name> and its
// directory fsync'ed, so a reader sees the old file or the whole new one, never a torn one,
// even across a crash of the writer or of the machine. A leftover temporary file is never read.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/ir/serialization.hpp"

namespace caflow::checkpoint {

std::string shard_file_name(int64_t step, int shard, int num_shards);
std::string index_file_name(int64_t step);
// The step of a file named by shard_file_name or index_file_name (temporary files included,
// "ckpt-<S>.shard-0-of-1.tmp-..."), or nothing for any other name.
std::optional<int64_t> step_of_file_name(std::string_view file_name);
bool is_index_file_name(std::string_view file_name);

// The key of a saved entry: `name` for a whole tensor (empty `shape_and_slice`), else
// "<name>:<shape_and_slice>" ("emb:10 4 0,4:-"). ':' never appears in a tensor name (SaveV2
// refuses one), so the first ':' splits a key.
std::string entry_key(std::string_view name, std::string_view shape_and_slice);
// The name and shape_and_slice ("" for a whole tensor) of an entry key.
std::pair<std::string_view, std::string_view> split_entry_key(std::string_view key);

// Writes `bytes` to `path` atomically (see above). Errors name the path and the failing call.
status write_file_atomically(const std::string& path, std::string_view bytes);
// The whole file. Errors: not_found when it does not exist, others naming the path.
status_or<std::string> read_file(const std::string& path);

// A tensor-list archive of `tensors`, written atomically.
status write_tensors(const std::string& path, const std::vector<named_tensor>& tensors);
// Errors: data_loss for a truncated or corrupted file (detected by its checksum, or a
// structurally invalid payload), naming `path`; not_found when it does not exist.
// The tensors' bytes come from `alloc`.
status_or<std::vector<named_tensor>> read_tensors(
    const std::string& path, const std::shared_ptr<allocator>& alloc = default_allocator());

struct index {
  int64_t step = 0;
  int num_shards = 0;
};
status write_index(const std::string& dir, const index& idx);
// Checks that the file's contents agree with its name's step.
status_or<index> read_index(const std::string& path);

// The prefix input of SaveV2/RestoreV2: caflow has no string dtype, so a path travels as a
// rank-1 uint8 tensor of its bytes.
tensor path_tensor(std::string_view path);
std::string path_of(const tensor& bytes);

}  // namespace caflow::checkpoint
