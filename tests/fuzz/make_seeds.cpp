// Writes the seed corpora of the fuzz targets: small valid archives and wire values, so the
// fuzzer starts from inputs that reach deep into each parser. Usage:
//   fuzz_make_seeds <corpus root>    (writes <root>/<target>/seed-*; run once, commit them)
// Not in the default build: `cmake --build build/release --target fuzz_make_seeds`.
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/wire_types.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/serialization.hpp"
#include "graph/ir/tensor_slice.hpp"
#include "graph/tf/crc32c.hpp"
#include "graph/tf/proto/tensor_bundle.pb.h"
#include "graph/tf/tensor_bundle.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "net/cluster_spec.hpp"
#include "net/shm/shm_handshake.hpp"

using namespace caflow;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string text(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_make_seeds: %s\n", what.c_str());
  std::exit(1);
}

// tensor_bundle_fuzz's input: byte 0 (0: the index file's bytes, 1: the table's records), the
// index's length as two bytes, little-endian, the index, then data shard 0.
std::string bundle_input(bool records, const std::string& index, const std::string& shard) {
  if (index.size() > 0xffff) fail("a seed bundle's index is over 64 KiB");
  std::string out{static_cast<char>(records), static_cast<char>(index.size() & 0xff),
                  static_cast<char>(index.size() >> 8)};
  return out + index + shard;
}

void put_varint32(std::string& out, uint32_t v) {
  for (; v >= 0x80; v >>= 7) out += static_cast<char>(v | 0x80);
  out += static_cast<char>(v);
}

void put_record(std::string& out, const std::string& key, const std::string& value) {
  put_varint32(out, static_cast<uint32_t>(key.size()));
  out += key;
  put_varint32(out, static_cast<uint32_t>(value.size()));
  out += value;
}

// The records of a table file, as leveldb reads them.
std::string table_records(const std::string& path) {
  leveldb::Env* env = leveldb::Env::Default();
  uint64_t size = 0;
  leveldb::RandomAccessFile* raw = nullptr;
  if (!env->GetFileSize(path, &size).ok() || !env->NewRandomAccessFile(path, &raw).ok())
    fail("cannot open " + path);
  std::unique_ptr<leveldb::RandomAccessFile> file(raw);
  leveldb::Table* raw_table = nullptr;
  if (!leveldb::Table::Open(leveldb::Options(), file.get(), size, &raw_table).ok())
    fail(path + " is not a table");
  std::unique_ptr<leveldb::Table> table(raw_table);
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(leveldb::ReadOptions()));
  std::string out;
  for (it->SeekToFirst(); it->Valid(); it->Next())
    put_record(out, it->key().ToString(), it->value().ToString());
  return out;
}

std::string bundle_header(int num_shards) {
  caflow::tfproto::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.mutable_version()->set_producer(1);
  return header.SerializeAsString();
}

// A float entry of `dims` at bytes [offset, offset + size) of shard 0.
caflow::tfproto::BundleEntryProto float_entry(const std::vector<int64_t>& dims, int64_t offset,
                                              int64_t size, uint32_t masked_crc) {
  caflow::tfproto::BundleEntryProto e;
  e.set_dtype(caflow::tfproto::DT_FLOAT);
  for (int64_t d : dims) e.mutable_shape()->add_dim()->set_size(d);
  e.set_offset(offset);
  e.set_size(size);
  e.set_crc32c(masked_crc);
  return e;
}

void add_extent(caflow::tfproto::TensorSliceProto* slice, int64_t start, int64_t length) {
  auto* x = slice->add_extent();
  x->set_start(start);
  if (length >= 0) x->set_length(length);
}

// Bundles written by bundle_writer, in both of tensor_bundle_fuzz's forms, then entries the
// writer never makes (huge shapes, slices that overlap or lack their bytes) and damaged files.
void write_bundle_seeds(const fs::path& dir, const std::vector<named_tensor>& tensors) {
  const fs::path tmp = fs::temp_directory_path() / ("caflow_make_seeds_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const auto write_both = [&](const std::string& name, const std::string& prefix) {
    const std::string index = read(tf::bundle_index_path(prefix));
    const std::string shard = read(tf::bundle_data_path(prefix, 0, 1));
    write(dir, "seed-" + name, bundle_input(false, index, shard));
    write(dir, "seed-" + name + "-records", bundle_input(true, table_records(tf::bundle_index_path(prefix)), shard));
    return std::pair{index, shard};
  };

  std::map<std::string, tensor> whole;
  for (const auto& [name, t] : tensors) whole.emplace(name, t);
  whole.emplace("vocab", tensor::from_strings({"the", "", "caflow"}, tensor_shape{3}));
  const std::string plain = (tmp / "plain").string();
  if (!tf::write_bundle(plain, whole).ok()) fail("cannot write a bundle");
  const auto [index, shard] = write_both("tensors", plain);

  const tensor full = tensor::from_vector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {6, 2});
  const std::string sliced = (tmp / "sliced").string();
  {
    tf::bundle_writer w(sliced);
    for (const auto& [begin, rows] : {std::pair<int64_t, int64_t>{0, 3}, {3, 2}, {5, 1}}) {
      const tensor_slice box = row_slice(full.shape(), begin, rows);
      tensor part(dtype::float32, box.shape());
      copy_slice(full, whole_slice(full.shape()), part, box, box);
      if (!w.add_slice("emb", box, part).ok()) fail("cannot add a slice");
    }
    if (!w.add("step", tensor::scalar<int64_t>(3)).ok() || !w.finish().ok())
      fail("cannot write a partitioned bundle");
  }
  write_both("partitioned", sliced);

  // Damage: an index cut short, a flipped byte in the shard (its CRC-32C), a shard cut short.
  write(dir, "seed-index-cut", bundle_input(false, index.substr(0, index.size() / 2), shard));
  std::string flipped = shard;
  flipped[flipped.size() / 2] ^= 0x10;
  write(dir, "seed-shard-flipped", bundle_input(false, index, flipped));
  write(dir, "seed-shard-cut", bundle_input(false, index, shard.substr(0, shard.size() / 2)));

  // Entries the writer never makes, as records.
  const std::string four = std::string("\0\0\x80?\0\0\0@\0\0@@\0\0\x80@", 16);  // 1 2 3 4
  const uint32_t crc = tf::mask_crc(tf::crc32c(four));
  std::string records;
  put_record(records, "", bundle_header(1));
  put_record(records, "huge", float_entry({int64_t{1} << 40}, 0, 16, crc).SerializeAsString());
  put_record(records, "w", float_entry({2, 2}, 0, 16, crc).SerializeAsString());
  write(dir, "seed-huge-shape", bundle_input(true, records, four));

  // A partitioned tensor: rows [0,1) and [1,2) of a [2,2], each two floats of the shard; then
  // the same with overlapping slices, and with one slice's entry missing.
  const auto partitioned = [&](std::vector<std::pair<int64_t, int64_t>> rows, bool all_entries) {
    auto e = float_entry({2, 2}, 0, 0, 0);
    std::map<std::string, std::string> entries;
    for (size_t i = 0; i < rows.size(); ++i) {
      auto* slice = e.add_slices();
      add_extent(slice, rows[i].first, rows[i].second);
      add_extent(slice, 0, -1);
      const std::string half = four.substr(8 * i, 8);
      if (all_entries || i == 0)
        entries[tf::bundle_slice_key("v", {rows[i].first, 0}, {rows[i].second, -1})] =
            float_entry({rows[i].second, 2}, 8 * static_cast<int64_t>(i), 8,
                        tf::mask_crc(tf::crc32c(half))).SerializeAsString();
    }
    entries["v"] = e.SerializeAsString();
    std::string out;
    put_record(out, "", bundle_header(1));
    for (const auto& [k, v] : entries) put_record(out, k, v);
    return out;
  };
  write(dir, "seed-slices", bundle_input(true, partitioned({{0, 1}, {1, 1}}, true), four));
  write(dir, "seed-slices-overlap", bundle_input(true, partitioned({{0, 2}, {1, 1}}, true), four));
  write(dir, "seed-slices-missing", bundle_input(true, partitioned({{0, 1}, {1, 1}}, false), four));
  // A huge partitioned tensor whose one slice covers it all and has no entry: the reader must not
  // allocate it before it finds the slice's bytes.
  auto big = float_entry({int64_t{1} << 20, int64_t{1} << 20}, 0, 0, 0);
  auto* all = big.add_slices();
  add_extent(all, 0, -1);
  add_extent(all, 0, -1);
  records.clear();
  put_record(records, "", bundle_header(1));
  put_record(records, "big", big.SerializeAsString());
  write(dir, "seed-slices-huge", bundle_input(true, records, ""));
  // The same with that slice's entry, which claims bytes the shard does not hold.
  put_record(records, tf::bundle_slice_key("big", {0, 0}, {-1, -1}),
             float_entry({int64_t{1} << 20, int64_t{1} << 20}, 0, int64_t{1} << 42, 0).SerializeAsString());
  write(dir, "seed-slices-huge-entry", bundle_input(true, records, four));
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

// A cluster rendered by the spec's own writers, alone and inside TF_CONFIGs, then broken ones.
void write_cluster_seeds(const fs::path& dir) {
  auto spec = cluster_spec::from_jobs({{"ps", {"127.0.0.1:2222"}},
                                       {"worker", {"10.0.0.1:2222", "[::1]:2223", "host-b.local:80"}},
                                       {"chief_0", {"localhost:65535"}}});
  if (!spec.ok()) fail(spec.get_status().to_string());
  write(dir, "seed-flag", spec->to_flag());
  write(dir, "seed-json", spec->to_json());
  write(dir, "seed-flag-spaced", " ps = a:1 ; worker = b:2 , c:3 ");
  write(dir, "seed-tf-config", R"({"cluster": )" + spec->to_json() +
                                   R"(, "task": {"type": "worker", "index": 2}, "environment": "cloud"})");
  write(dir, "seed-tf-config-no-index", R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps"}})");
  write(dir, "seed-tf-config-out-of-range",
        R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "ps", "index": 18446744073709551615}})");
  write(dir, "seed-json-duplicate-key", R"({"ps": ["a:1"], "ps": ["b:1"]})");
  write(dir, "seed-duplicate-address", "ps=a:1;worker=A:01");
  write(dir, "seed-bad-port", "ps=a:65536,b:0,c:x");
  write(dir, "seed-bad-ipv6", "ps=[::1:2222");
  write(dir, "seed-trailing", "ps=a:1;worker=b:2,;");
  write(dir, "seed-not-json", "{\"ps\": [\"a:1\"");
}

// The handshake's messages as each end sends them, with proofs no secret made.
void write_shm_seeds(const fs::path& dir) {
  std::string hello(4, '\0');
  std::memcpy(hello.data(), &shm_hello_magic, 4);
  for (size_t i = 0; i < shm_nonce_bytes; ++i) hello += static_cast<char>(i * 7 + 1);
  const std::string proof(shm_proof_bytes, '\x5a');
  write(dir, "seed-hello-accepted", hello + shm_verdict_accepted + proof);
  write(dir, "seed-hello-refused", hello + shm_verdict_refused + std::string(shm_proof_bytes, '\0'));
  write(dir, "seed-hello-only", hello);
  write(dir, "seed-hello-cut", hello.substr(0, 20));
  std::string foreign = hello;
  foreign[3] = 0x02;  // another version of the protocol
  write(dir, "seed-hello-other-version", foreign + shm_verdict_accepted + proof);
  write(dir, "seed-answer", hello.substr(4) + proof);
  write(dir, "seed-empty", "");
}

graph_def example_graph() {
  graph_def g;
  node_def x{"x", "Placeholder", "/job:worker/task:0", {}, {{"dtype", dtype::float32},
                                                           {"shape", partial_shape{-1, 2}}}};
  node_def w{"w", "Const", "", {}, {{"dtype", dtype::float32},
                                    {"value", tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}}};
  node_def y{"y", "MatMul", "/job:ps/task:0", {"x", "w:0", "^init"},
             {{"transpose_a", false}, {"transpose_b", true}, {"T", dtype::float32}}};
  node_def lists{"lists", "NoOp", "", {}, {{"ints", std::vector<int64_t>{1, -2, 3}},
                                           {"floats", std::vector<float>{0.5f, -1}},
                                           {"bools", std::vector<bool>{true, false}},
                                           {"strings", std::vector<std::string>{"a", ""}},
                                           {"types", std::vector<dtype>{dtype::int32, dtype::uint8}},
                                           {"shapes", std::vector<partial_shape>{partial_shape::unknown()}},
                                           {"tensors", std::vector<tensor>{tensor::scalar<int64_t>(9)}},
                                           {"f", 2.5f}, {"i", int64_t{7}}, {"s", "text"}}};
  g.nodes = {x, w, y, lists};
  return g;
}

std::vector<named_tensor> example_tensors() {
  return {{"w", tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})},
          {"b", tensor::from_vector<double>({-1.5})},
          {"step", tensor::scalar<int64_t>(100)},
          {"i", tensor::from_vector<int32_t>({7, 8, 9})},
          {"u", tensor::from_vector<uint8_t>({255, 0})},
          {"m", tensor::from_vector<bool>({true, false, true})},
          {"empty", tensor(dtype::float32, tensor_shape{0, 3})}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus root>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];

  write(root / "graph_def", "seed-graph", serialize_graph(example_graph()));
  write(root / "graph_def", "seed-empty", serialize_graph(graph_def{}));

  int n = 0;
  for (const auto& [name, t] : example_tensors())
    write(root / "tensor", "seed-" + std::to_string(n++) + "-" + name, serialize_tensor(t));
  write(root / "tensor", "seed-uninitialized", serialize_tensor(tensor{}));
  write(root / "tensor", "seed-list", serialize_tensors(example_tensors()));

  write(root / "checkpoint", "seed-shard", serialize_tensors(example_tensors()));
  write(root / "checkpoint", "seed-index",
        serialize_tensors({{"step", tensor::scalar<int64_t>(7)},
                           {"num_shards", tensor::scalar<int64_t>(2)}}));
  write(root / "checkpoint", "seed-name", checkpoint::shard_file_name(7, 0, 1));

  struct wire_config : caf::actor_system_config {
    wire_config() {
      add_wire_types(*this);
      set("scheduler.max-threads", 1);
    }
  } cfg;
  caf::actor_system sys{cfg};
  const auto& types = fuzz::wire_types();
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string selector(1, static_cast<char>(i));
    const auto value = types[i].example(sys);
    write(root / "wire", std::string("seed-") + (types[i].name + 8), selector + text(value));
  }
  // Whole messages as BASP carries them: an atom and a value, type names included.
  const std::string message(1, static_cast<char>(fuzz::message_selector()));
  run_graph_request request;
  request.graph_handle = "g";
  request.args = {wire_tensor{fuzz::small_tensor()}};
  auto msg = caf::make_message(cf_run_graph_atom::value, request);
  write(root / "wire", "seed-message-run_graph", message + text(fuzz::encode(sys, msg)));
  edge_value edge;
  edge.key = "k";
  edge.value = wire_tensor{tensor::scalar<float>(1)};
  msg = caf::make_message(cf_push_atom::value, edge);
  write(root / "wire", "seed-message-push", message + text(fuzz::encode(sys, msg)));
  auto chunks = make_chunks(3, "k", tensor::from_vector<int64_t>({1, 2, 3}), 8);
  msg = caf::make_message(cf_chunk_atom::value, chunks.at(0));
  write(root / "wire", "seed-message-chunk", message + text(fuzz::encode(sys, msg)));
  msg = caf::make_message(
      cf_abort_atom::value, int64_t{5},
      step_error{13, "task /job:w/replica:0/task:1 was lost", {}, {}, "/job:w/replica:0/task:1"});
  write(root / "wire", "seed-message-abort", message + text(fuzz::encode(sys, msg)));
  msg = caf::make_message(cf_inspect_atom::value, admin_query{{"trace", "on"}});
  write(root / "wire", "seed-message-admin", message + text(fuzz::encode(sys, msg)));
  const auto frame = encode_bulk_header({.actor_id = 12, .step_id = 5, .key = "a;b;x:0",
                                         .type = static_cast<uint8_t>(dtype::float32),
                                         .dims = {1024, 1024}, .total_bytes = 4 << 20});
  write(root / "bulk_frame", "seed-frame", text(frame));
  write_bundle_seeds(root / "tensor_bundle", example_tensors());
  write_cluster_seeds(root / "cluster_spec");
  write_shm_seeds(root / "shm_handshake");
  std::printf("seeds written under %s\n", root.c_str());
  return 0;
}
