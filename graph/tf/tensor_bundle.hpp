#pragma once
// TensorFlow's tensor bundles: the checkpoint format V2 that tf.train.Saver and SavedModels'
// variables/ folder use.
//
//   auto bundle = tf::bundle_reader::open("model/variables/variables");
//   tensor w = *bundle->read("dense/kernel");
//
//   tf::bundle_writer out("/tmp/ckpt/model");
//   out.add("w", w);
//   out.finish();                       // /tmp/ckpt/model.index, model.data-00000-of-00001
//
// A bundle at `prefix` is `prefix.index` and the data shards `prefix.data-NNNNN-of-MMMMM`. The
// index is a LevelDB table (TensorFlow's table format is LevelDB's, block for block), read and
// written by leveldb's own table API: its "" key holds a BundleHeaderProto (shard count, byte
// order, format version), every other key, a tensor's name, a BundleEntryProto (dtype, shape,
// shard, offset, size and the masked CRC-32C of the bytes; graph/tf/proto/tensor_bundle.proto).
// A tensor's bytes are its elements, little-endian, as in a TensorProto's tensor_content.
//
// Every error names the file and, where there is one, the key: a missing index or data shard is
// NOT_FOUND; an index that is not a table, an entry that does not parse, a shard shorter than
// an entry says, and bytes whose CRC-32C differs from the entry's are DATA_LOSS. Partitioned
// tensors (entries with slices), strings and other types caflow lacks are refused by key
// (UNIMPLEMENTED) when read; the rest of the bundle stays readable.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/tensor.hpp"
#include "graph/tf/tf_dtype.hpp"

namespace caflow::tf {

// "prefix.index" and "prefix.data-00000-of-00001" (shard 0 of 1).
std::string bundle_index_path(const std::string& prefix);
std::string bundle_data_path(const std::string& prefix, int shard, int num_shards);

// What the index says of one tensor.
struct bundle_entry {
  std::string key;
  tf_type type = 0;              // TensorFlow's DataType number (graph/tf/tf_dtype.hpp)
  partial_shape shape;           // fully known for every tensor TensorFlow writes
  int shard = 0;
  int64_t offset = 0;
  int64_t size = 0;
  uint32_t masked_crc32c = 0;    // as stored: mask_crc(crc32c(bytes))
  int slices = 0;                // > 0: a partitioned tensor, whose parts have keys of their own
};

class bundle_reader {
 public:
  // Reads the whole index (one entry a tensor, so small) and checks it: every entry parses, its
  // shard is one the header counts. Data shards are opened by read().
  static status_or<bundle_reader> open(const std::string& prefix);

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return num_shards_; }
  // The tensors' entries, by key (byte order, as the index keeps them).
  const std::map<std::string, bundle_entry, std::less<>>& entries() const { return entries_; }
  bool contains(std::string_view key) const { return entries_.find(key) != entries_.end(); }

  // The tensor under `key`, its bytes checked against the entry's CRC-32C.
  status_or<tensor> read(std::string_view key) const;

 private:
  static status_or<bundle_reader> read_index(const std::string& prefix, const std::string& index);

  std::string prefix_;
  int num_shards_ = 0;
  std::map<std::string, bundle_entry, std::less<>> entries_;
};

// Writes one bundle in a single data shard, as TensorFlow's BundleWriter does: header
// {num_shards 1, little-endian, version {producer 1}}, entries in key order, tensors' bytes back
// to back. Both files are written beside their final names and renamed by finish(), so a
// failed or abandoned write leaves no bundle that looks whole.
class bundle_writer {
 public:
  explicit bundle_writer(std::string prefix);
  ~bundle_writer();
  bundle_writer(const bundle_writer&) = delete;
  bundle_writer& operator=(const bundle_writer&) = delete;

  // Appends `value`'s bytes to the data shard. An empty key (the header's) or one already added
  // is INVALID_ARGUMENT; so is an uninitialized or resource tensor.
  status add(const std::string& key, const tensor& value);
  // Writes the index and puts both files in place. The first error of add() or finish() is
  // returned again by every later call.
  status finish();

 private:
  struct state;
  std::string prefix_;
  std::unique_ptr<state> state_;
};

// Writes every tensor of `tensors` as the bundle at `prefix`.
status write_bundle(const std::string& prefix, const std::map<std::string, tensor>& tensors);

}  // namespace caflow::tf
