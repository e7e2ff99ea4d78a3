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
// an entry says, and bytes whose CRC-32C differs from the entry's are DATA_LOSS. String
// tensors are laid out as TensorFlow's writer lays them out (varint lengths, their own CRC,
// then the bytes). Types caflow lacks are refused by key (UNIMPLEMENTED) when read; the rest of
// the bundle stays readable.
//
// A partitioned tensor (tf.train.Saver with save_slice_info) has an entry under its name that
// holds its dtype, its full shape and the boxes of its slices, and no bytes; each slice's bytes
// are an entry of their own under bundle_slice_key(name, box). read() puts the slices together;
// slices that overlap, leave part of the tensor out, or lack their entry are DATA_LOSS.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/tensor.hpp"
#include "graph/ir/tensor_slice.hpp"
#include "graph/tf/tf_dtype.hpp"

namespace caflow::tf {

// "prefix.index" and "prefix.data-00000-of-00001" (shard 0 of 1).
std::string bundle_index_path(const std::string& prefix);
std::string bundle_data_path(const std::string& prefix, int shard, int num_shards);
// The key of a slice of tensor `name` (TensorFlow's EncodeTensorNameSlice: OrderedCode of 0,
// the name, the rank, then each extent's start and length as the entry's TensorSliceProto
// spells it: a whole extent is start 0, length -1, an explicit one its numbers, even when they
// span the dimension). Such keys start with a 0 byte, which no tensor name does.
std::string bundle_slice_key(std::string_view name, const std::vector<int64_t>& start,
                             const std::vector<int64_t>& length);
// The key bundle_writer::add_slice files `box` under: its whole dimensions as whole extents.
std::string bundle_slice_key(std::string_view name, const tensor_slice& box);
inline bool is_bundle_slice_key(std::string_view key) { return !key.empty() && key[0] == '\0'; }

// What the index says of one tensor.
struct bundle_entry {
  std::string key;
  tf_type type = 0;              // TensorFlow's DataType number (graph/tf/tf_dtype.hpp)
  partial_shape shape;           // fully known for every tensor TensorFlow writes
  int shard = 0;
  int64_t offset = 0;
  int64_t size = 0;
  uint32_t masked_crc32c = 0;    // as stored: mask_crc(crc32c(bytes))
  // A partitioned tensor's slices (in its full shape), whose bytes have keys of their own;
  // empty for a whole tensor.
  std::vector<tensor_slice> slices;
  std::vector<std::string> slice_keys;  // where each slice's bytes are, as the entry spells it
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

  // The tensor under `key`, its bytes checked against the entry's CRC-32C; a partitioned one
  // put together from its slices.
  status_or<tensor> read(std::string_view key) const;
  // The tensors' names, without the keys of partitioned tensors' slices: for messages.
  std::string names() const;

 private:
  status_or<tensor> read_entry(const bundle_entry& e) const;
  status_or<tensor> read_partitioned(const bundle_entry& e) const;

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
  // Appends slice `box` of the partitioned tensor `name` (`value` shaped as the box), as
  // TensorFlow's BundleWriter::AddSlice: finish() writes `name`'s entry with every slice added.
  // A slice that overlaps another, disagrees with another on the full shape or dtype, or names a
  // tensor also added whole is INVALID_ARGUMENT.
  status add_slice(const std::string& name, const tensor_slice& box, const tensor& value);
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
