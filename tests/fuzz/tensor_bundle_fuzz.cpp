// TensorFlow tensor bundles, as checkpoints and SavedModels' variables arrive
// (graph/tf/tensor_bundle.hpp). The reader takes files only, so each input is written as a bundle
// in a temporary directory: byte 0 picks how the index is given, bytes 1-2 (little-endian) are
// the index's length, the index follows and the rest is the data shard (shard 0 of as many as
// the header counts). An even byte 0 gives the .index file's bytes as they are; an odd one gives
// the table's records (varint32 length and key, varint32 length and value, ...), which are built
// into a table here, so that mutations get past leveldb's checksums to the header, the
// BundleEntryProtos and their TensorSliceProtos. Every tensor the index names is read; one that
// reads must have the entry's dtype and shape and, written into a bundle of its own, read back
// the same. The seeds (corpus/tensor_bundle/seed-*) are bundles bundle_writer wrote (whole,
// partitioned and string tensors) in both forms, hand-made entries, and cut or corrupted ones.
#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/tf/tensor_bundle.hpp"

namespace {

using namespace caflow;
namespace fs = std::filesystem;

// One directory for the life of the process; the files of an input are removed after it.
struct scratch_dir {
  fs::path path;
  scratch_dir() {
    std::string name = (fs::temp_directory_path() / "caflow_fuzz_bundle_XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path = name;
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  // Removes what an input left, so no file outlives the input that wrote it.
  void clear() const {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(path, ec)) fs::remove_all(entry.path(), ec);
  }
};

const scratch_dir& scratch() {
  static const scratch_dir dir;
  return dir;
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
}

bool get_varint32(std::string_view& in, uint32_t& v) {
  v = 0;
  for (int shift = 0; shift <= 28 && !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= uint32_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

bool get_prefixed(std::string_view& in, std::string_view& out) {
  uint32_t n = 0;
  if (!get_varint32(in, n) || n > in.size()) return false;
  out = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

// The records as a leveldb table, in key order (a key given twice keeps its first value), as
// TensorFlow's writer builds an index: uncompressed.
void write_table(const std::string& path, std::string_view records) {
  std::map<std::string, std::string> table;
  std::string_view key, value;
  while (get_prefixed(records, key) && get_prefixed(records, value)) table.emplace(key, value);
  leveldb::WritableFile* raw = nullptr;
  if (!leveldb::Env::Default()->NewWritableFile(path, &raw).ok()) std::abort();
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, file.get());
  for (const auto& [k, v] : table) builder.Add(k, v);
  if (!builder.Finish().ok() || !file->Close().ok()) std::abort();
}

[[noreturn]] void fail(const std::string& what, const status& s) {
  std::fprintf(stderr, "%s%s%s\n", what.c_str(), s.ok() ? "" : ": ", s.ok() ? "" : s.to_string().c_str());
  std::abort();
}

// A tensor that read must be what its entry says and survive a bundle of its own.
void check_read(const tf::bundle_entry& e, const tensor& t, const std::string& dir) {
  const std::string key = tf::is_bundle_slice_key(e.key) ? "a slice's entry" : "'" + e.key + "'";
  auto type = tf::dtype_from_tf(e.type);
  if (!type.ok() || *type != t.type() || !e.shape.fully_defined() || e.shape.to_shape() != t.shape())
    fail(key + " read as " + t.debug_string(4) + ", not what its entry says", {});
  const std::string again = dir + "/again";
  const status written = tf::write_bundle(again, {{"t", t}});
  if (!written.ok()) fail(key + " read as " + t.debug_string(4) + " but does not write", written);
  auto reader = tf::bundle_reader::open(again);
  if (!reader.ok()) fail("a bundle just written does not open", reader.get_status());
  auto back = reader->read("t");
  if (!back.ok()) fail("a tensor just written does not read", back.get_status());
  if (!back->equals(t)) fail(key + " written and read again differs: " + back->debug_string(4), {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const bool records = data[0] & 1;
  const size_t claimed = data[1] | size_t{data[2]} << 8;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  const std::string_view index = rest.substr(0, claimed);
  const std::string_view shard = rest.substr(index.size());

  const scratch_dir& dir = scratch();
  const std::string prefix = (dir.path / "fuzz").string();
  if (records) {
    write_table(tf::bundle_index_path(prefix), index);
  } else {
    write_file(tf::bundle_index_path(prefix), index);
  }
  auto bundle = tf::bundle_reader::open(prefix);
  if (bundle.ok()) {
    write_file(tf::bundle_data_path(prefix, 0, bundle->num_shards()), shard);
    for (const auto& [key, entry] : bundle->entries()) {
      auto t = bundle->read(key);
      if (t.ok()) check_read(entry, *t, dir.path.string());
    }
  }
  dir.clear();
  return 0;
}
