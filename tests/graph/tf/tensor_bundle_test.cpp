// Tensor bundles (checkpoint format V2): TensorFlow's own checkpoint read, caflow's written one
// read back and checked with leveldb's table API and an independent CRC-32C, and every
// corruption of index or data an error naming the file and the key.
#include <doctest/doctest.h>

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>

#include "graph/ir/checkpoint_format.hpp"
#include "graph/tf/crc32c.hpp"
#include "graph/tf/ordered_code.hpp"
#include "graph/tf/proto/tensor_bundle.pb.h"
#include "graph/tf/tensor_bundle.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::temp_dir;

namespace {

namespace fs = std::filesystem;
namespace tfp = ::caflow::tfproto;

// TensorFlow 1.14's checkpoint of tensorflow/serving's half_plus_two (tests/data/tf/NOTICE).
const std::string half_plus_two =
    std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/saved_model_half_plus_two/variables/variables");

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read ", path);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

tf::bundle_reader open(const std::string& prefix) {
  auto r = tf::bundle_reader::open(prefix);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return std::move(*r);
}

tensor read(const tf::bundle_reader& r, const std::string& key) {
  auto t = r.read(key);
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  return *t;
}

float scalar(const tf::bundle_reader& r, const std::string& key) {
  const tensor t = read(r, key);
  REQUIRE(t.type() == dtype::float32);
  REQUIRE(t.shape() == tensor_shape{});
  return t.to_vector<float>()[0];
}

bool same_bytes(const tensor& a, const tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

// Every key and value of a table, read by leveldb alone.
std::vector<std::pair<std::string, std::string>> table_contents(const std::string& path) {
  leveldb::Env* env = leveldb::Env::Default();
  uint64_t size = 0;
  REQUIRE(env->GetFileSize(path, &size).ok());
  leveldb::RandomAccessFile* raw = nullptr;
  REQUIRE(env->NewRandomAccessFile(path, &raw).ok());
  std::unique_ptr<leveldb::RandomAccessFile> file(raw);
  leveldb::Table* raw_table = nullptr;
  leveldb::Options options;
  options.paranoid_checks = true;
  const leveldb::Status s = leveldb::Table::Open(options, file.get(), size, &raw_table);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  std::unique_ptr<leveldb::Table> table(raw_table);
  leveldb::ReadOptions read;
  read.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read));
  std::vector<std::pair<std::string, std::string>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next())
    out.emplace_back(it->key().ToString(), it->value().ToString());
  REQUIRE_MESSAGE(it->status().ok(), it->status().ToString());
  return out;
}

// Writes an index by hand, for entries caflow's writer never makes (slices, strings, halves).
void write_index(const std::string& path, const std::map<std::string, tfp::BundleEntryProto>& entries) {
  leveldb::WritableFile* raw = nullptr;
  REQUIRE(leveldb::Env::Default()->NewWritableFile(path, &raw).ok());
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, file.get());
  tfp::BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);
  builder.Add("", header.SerializeAsString());
  for (const auto& [k, e] : entries) builder.Add(k, e.SerializeAsString());
  REQUIRE(builder.Finish().ok());
  REQUIRE(file->Close().ok());
}

// The CRC-32C of a file's bytes as python3-crc32c (Debian's binding of an independent
// implementation) computes it, or -1 when that module is not installed.
long long python_crc32c(const std::string& path) {
  const std::string cmd = "/usr/bin/python3 -c 'import crc32c, sys; "
                          "print(crc32c.crc32c(open(sys.argv[1], \"rb\").read()))' '" + path +
                          "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  char line[64] = {};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  if (::pclose(p) != 0 || !got) return -1;
  return std::stoll(line);
}

}  // namespace

TEST_CASE("TensorFlow's checkpoint of half_plus_two reads a = 0.5, b = 2, c = 3") {
  const tf::bundle_reader r = open(half_plus_two);
  CHECK(r.num_shards() == 1);
  std::vector<std::string> keys;
  for (const auto& [k, e] : r.entries()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"a", "a2", "b", "c", "c2"});
  CHECK(scalar(r, "a") == 0.5f);
  CHECK(scalar(r, "b") == 2.0f);
  CHECK(scalar(r, "c") == 3.0f);
  CHECK(scalar(r, "a2") == 0.5f);
  CHECK(scalar(r, "c2") == 3.0f);
  const tf::bundle_entry& b = r.entries().at("b");
  CHECK(b.type == tfp::DT_FLOAT);
  CHECK(b.offset == 8);
  CHECK(b.size == 4);
  CHECK(b.masked_crc32c == tf::mask_crc(tf::crc32c(std::string("\x00\x00\x00\x40", 4))));
}

TEST_CASE("rewriting half_plus_two's variables gives TensorFlow's data file and entries") {
  const tf::bundle_reader theirs = open(half_plus_two);
  std::map<std::string, tensor> values;
  for (const auto& [k, e] : theirs.entries()) values[k] = read(theirs, k);
  temp_dir dir("caflow_bundle_tf_");
  const std::string prefix = dir.file("variables");
  REQUIRE(tf::write_bundle(prefix, values).ok());
  CHECK(read_bytes(tf::bundle_data_path(prefix, 0, 1)) == read_bytes(tf::bundle_data_path(half_plus_two, 0, 1)));
  const tf::bundle_reader ours = open(prefix);
  REQUIRE(ours.entries().size() == theirs.entries().size());
  for (const auto& [k, e] : theirs.entries()) {
    CAPTURE(k);
    const tf::bundle_entry& o = ours.entries().at(k);
    CHECK(o.type == e.type);
    CHECK(o.shape == e.shape);
    CHECK(o.shard == e.shard);
    CHECK(o.offset == e.offset);
    CHECK(o.size == e.size);
    CHECK(o.masked_crc32c == e.masked_crc32c);
  }
  // Entry for entry the same protobuf bytes too (TensorFlow's index is snappy-compressed, so
  // the files themselves differ).
  CHECK(table_contents(tf::bundle_index_path(prefix)) == table_contents(tf::bundle_index_path(half_plus_two)));
}

TEST_CASE("every dtype round-trips through a written bundle") {
  std::map<std::string, tensor> values = {
      {"f32", tensor::from_vector<float>({1.5f, -2.25f, 3e30f, 0.0f, -0.0f, 7.0f}, tensor_shape{2, 3})},
      {"f64", tensor::from_vector<double>({3.141592653589793, -1e300}, tensor_shape{2})},
      {"i32", tensor::from_vector<int32_t>({-2147483647 - 1, 2147483647, 0, 5}, tensor_shape{2, 1, 2})},
      {"i64", tensor::from_vector<int64_t>({int64_t{1} << 62, -3}, tensor_shape{2})},
      {"u8", tensor::from_vector<uint8_t>({0, 255, 128}, tensor_shape{3})},
      {"bool", tensor::from_vector<bool>({true, false, true, true}, tensor_shape{4})},
      {"scalar", tensor::scalar<float>(42.0f)},
      {"empty", tensor(dtype::float32, tensor_shape{0, 4})},
      {"dir/nested/name", tensor::from_vector<int32_t>({7}, tensor_shape{1})},
  };
  temp_dir dir("caflow_bundle_rt_");
  const std::string prefix = dir.file("sub/ckpt");  // the writer makes the folder
  REQUIRE(tf::write_bundle(prefix, values).ok());
  CHECK(fs::exists(tf::bundle_index_path(prefix)));
  CHECK(fs::exists(prefix + ".data-00000-of-00001"));
  CHECK_FALSE(fs::exists(tf::bundle_index_path(prefix) + ".tempstate"));

  const tf::bundle_reader r = open(prefix);
  REQUIRE(r.entries().size() == values.size());
  for (const auto& [k, v] : values) {
    CAPTURE(k);
    const tensor got = read(r, k);
    CHECK(same_bytes(got, v));
    CHECK(r.entries().at(k).type == tf::tf_type_of(v.type()));
  }
}

TEST_CASE("a written index is a table leveldb reads alone, with TensorFlow's header") {
  temp_dir dir("caflow_bundle_lv_");
  const std::string prefix = dir.file("ckpt");
  const tensor w = tensor::from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, tensor_shape{2, 2});
  const tensor step = tensor::scalar<int64_t>(700);
  REQUIRE(tf::write_bundle(prefix, {{"w", w}, {"global_step", step}}).ok());

  const auto rows = table_contents(tf::bundle_index_path(prefix));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].first == "");
  CHECK(rows[1].first == "global_step");  // sorted
  CHECK(rows[2].first == "w");
  tfp::BundleHeaderProto header;
  REQUIRE(header.ParseFromString(rows[0].second));
  CHECK(header.num_shards() == 1);
  CHECK(header.endianness() == tfp::BundleHeaderProto::LITTLE);
  CHECK(header.version().producer() == 1);
  CHECK(header.version().min_consumer() == 0);
  // TensorFlow's BundleWriter writes exactly these header bytes.
  CHECK(rows[0].second == std::string("\x08\x01\x1a\x02\x08\x01", 6));

  tfp::BundleEntryProto e;
  REQUIRE(e.ParseFromString(rows[2].second));
  CHECK(e.dtype() == tfp::DT_FLOAT);
  REQUIRE(e.shape().dim_size() == 2);
  CHECK(e.shape().dim(1).size() == 2);
  CHECK(e.offset() == 8);  // after global_step's 8 bytes
  CHECK(e.size() == 16);
  // The bytes of 1, 2, 3, 4 as float32: their CRC-32C, independently of caflow's code when
  // python3-crc32c is there, and as a constant always.
  const std::string data = read_bytes(tf::bundle_data_path(prefix, 0, 1));
  REQUIRE(data.size() == 24);
  const std::string w_bytes = data.substr(8, 16);
  const std::string w_file = dir.file("w.bin");
  write_bytes(w_file, w_bytes);
  const long long independent = python_crc32c(w_file);
  if (independent < 0) {
    MESSAGE("python3-crc32c is not installed: the CRC is checked against a constant only");
  } else {
    CHECK(tf::unmask_crc(e.crc32c()) == static_cast<uint32_t>(independent));
  }
  CHECK(tf::unmask_crc(e.crc32c()) == tf::crc32c(w_bytes));
  CHECK(tf::crc32c(w_bytes) == 0x9EBA690Au);
}

TEST_CASE("missing files and keys are NOT_FOUND naming them") {
  temp_dir dir("caflow_bundle_nf_");
  const std::string prefix = dir.file("ckpt");
  auto none = tf::bundle_reader::open(prefix);
  REQUIRE_FALSE(none.ok());
  CHECK(none.get_status().code() == error_code::not_found);
  check_error(none, prefix + ".index");

  REQUIRE(tf::write_bundle(prefix, {{"w", tensor::scalar<float>(1.0f)}}).ok());
  const tf::bundle_reader r = open(prefix);
  auto missing = r.read("v");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.get_status().code() == error_code::not_found);
  check_error(missing, "'v'");
  check_error(missing, prefix + ".index");

  fs::remove(tf::bundle_data_path(prefix, 0, 1));
  auto no_data = r.read("w");
  REQUIRE_FALSE(no_data.ok());
  CHECK(no_data.get_status().code() == error_code::not_found);
  check_error(no_data, prefix + ".data-00000-of-00001");
  check_error(no_data, "'w'");
}

TEST_CASE("a corrupt or truncated index is DATA_LOSS naming it, at every byte") {
  temp_dir dir("caflow_bundle_ci_");
  const std::string prefix = dir.file("ckpt");
  REQUIRE(tf::write_bundle(prefix, {{"a", tensor::scalar<float>(1.0f)},
                                    {"b", tensor::from_vector<int32_t>({1, 2, 3})}}).ok());
  const std::string index = tf::bundle_index_path(prefix);
  const std::string good = read_bytes(index);
  for (size_t i = 0; i < good.size(); ++i) {
    CAPTURE(i);
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    write_bytes(index, bad);
    auto r = tf::bundle_reader::open(prefix);
    // Some bytes no reader looks at: the metaindex block (a table without filters has nothing
    // there) and the footer's padding. The data block, which comes first, and the magic number
    // that ends the file are always looked at.
    if (r.ok() && i >= good.size() / 4 && i < good.size() - 8) continue;
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().code() == error_code::data_loss);
    check_error(r, index);
  }
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    write_bytes(index, good.substr(0, n));
    auto r = tf::bundle_reader::open(prefix);
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().code() == error_code::data_loss);
    check_error(r, index);
  }
}

TEST_CASE("a corrupt or short data shard is DATA_LOSS naming the file and the key") {
  temp_dir dir("caflow_bundle_cd_");
  const std::string prefix = dir.file("ckpt");
  REQUIRE(tf::write_bundle(prefix, {{"a", tensor::scalar<float>(1.0f)},
                                    {"b", tensor::from_vector<int32_t>({1, 2, 3})}}).ok());
  const std::string data_file = tf::bundle_data_path(prefix, 0, 1);
  const std::string good = read_bytes(data_file);
  REQUIRE(good.size() == 16);
  std::string bad = good;
  bad[9] = static_cast<char>(bad[9] ^ 1);  // inside b's bytes [4, 16)
  write_bytes(data_file, bad);
  const tf::bundle_reader r = open(prefix);
  CHECK(read(r, "a").to_vector<float>()[0] == 1.0f);  // a's bytes are intact
  auto b = r.read("b");
  REQUIRE_FALSE(b.ok());
  CHECK(b.get_status().code() == error_code::data_loss);
  check_error(b, data_file + ": 'b'");
  check_error(b, "CRC-32C");

  write_bytes(data_file, good.substr(0, 10));
  auto short_b = r.read("b");
  REQUIRE_FALSE(short_b.ok());
  CHECK(short_b.get_status().code() == error_code::data_loss);
  check_error(short_b, data_file + ": 'b' needs bytes [4, 16) but the file holds 10");
}

TEST_CASE("entries caflow cannot read are refused by key; the rest of the bundle reads") {
  temp_dir dir("caflow_bundle_un_");
  const std::string prefix = dir.file("ckpt");
  // Two halves (1.0 and -2.0 as IEEE binary16) then 4 bytes said to be a string tensor.
  const std::string data = std::string("\x00\x3c\x00\xc0", 4) + "abcd";
  write_bytes(tf::bundle_data_path(prefix, 0, 1), data);
  std::map<std::string, tfp::BundleEntryProto> entries;
  auto entry = [&](tfp::DataType type, std::vector<int64_t> dims, int64_t offset, int64_t size) {
    tfp::BundleEntryProto e;
    e.set_dtype(type);
    for (int64_t d : dims) e.mutable_shape()->add_dim()->set_size(d);
    e.set_offset(offset);
    e.set_size(size);
    e.set_crc32c(tf::mask_crc(tf::crc32c(data.substr(static_cast<size_t>(offset), static_cast<size_t>(size)))));
    return e;
  };
  entries["half"] = entry(tfp::DT_HALF, {2}, 0, 4);
  entries["text"] = entry(tfp::DT_STRING, {1}, 4, 4);
  tfp::BundleEntryProto sliced = entry(tfp::DT_FLOAT, {4}, 0, 0);
  auto* extent = sliced.add_slices()->add_extent();
  extent->set_start(0);
  extent->set_length(2);
  entries["sliced"] = sliced;
  // A shape of 2^40 elements in 4 bytes: refused before anything is allocated.
  entries["huge"] = entry(tfp::DT_FLOAT, {int64_t{1} << 20, int64_t{1} << 20}, 0, 4);
  write_index(tf::bundle_index_path(prefix), entries);

  const tf::bundle_reader r = open(prefix);
  const tensor half = read(r, "half");
  CHECK(half.type() == dtype::float32);  // widened, as in GraphDefs
  CHECK(half.to_vector<float>() == std::vector<float>{1.0f, -2.0f});

  auto text = r.read("text");  // 4 bytes that are not TensorFlow's string layout
  REQUIRE_FALSE(text.ok());
  CHECK(text.get_status().code() == error_code::data_loss);
  check_error(text, "'text'");
  check_error(text, "the entry says 4 bytes but shape [1] of DT_STRING needs at least 5");

  auto s = r.read("sliced");  // one slice of two rows, of a tensor of four
  REQUIRE_FALSE(s.ok());
  CHECK(s.get_status().code() == error_code::data_loss);
  check_error(s, "'sliced': its 1 slices cover 2 of its 4 elements");

  auto huge = r.read("huge");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.get_status().code() == error_code::data_loss);
  check_error(huge, "'huge': the entry says 4 bytes");
}

TEST_CASE("the writer refuses an empty key, a repeated key and a tensor without bytes") {
  temp_dir dir("caflow_bundle_wr_");
  const std::string prefix = dir.file("ckpt");
  {
    tf::bundle_writer out(prefix);
    check_error(out.add("", tensor::scalar<float>(1.0f)), "cannot be empty");
    REQUIRE(out.add("w", tensor::scalar<float>(1.0f)).ok());
    check_error(out.add("w", tensor::scalar<float>(2.0f)), "'w' added twice");
    check_error(out.add("u", tensor()), "not initialized");
    // Never finished: nothing is left behind that looks like a bundle.
  }
  CHECK_FALSE(fs::exists(tf::bundle_index_path(prefix)));
  CHECK_FALSE(fs::exists(tf::bundle_data_path(prefix, 0, 1)));
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("OrderedCode as TensorFlow documents it, and slice keys in its order") {
  auto hex = [](const std::string& bytes) {
    std::string out;
    char buf[4];
    for (unsigned char c : bytes) {
      std::snprintf(buf, sizeof buf, "%02x", c);
      out += buf;
    }
    return out;
  };
  auto num = [&](uint64_t v) {
    std::string s;
    tf::ordered_code::write_num_increasing(s, v);
    return hex(s);
  };
  auto signed_num = [&](int64_t v) {
    std::string s;
    tf::ordered_code::write_signed_num_increasing(s, v);
    return hex(s);
  };
  CHECK(num(0) == "00");
  CHECK(num(300) == "02012c");
  CHECK(num(~uint64_t{0}) == "08ffffffffffffffff");
  // The two examples of TensorFlow's ordered_code.cc, and the edges of each length.
  CHECK(signed_num(0x424242) == "f0424242");
  CHECK(signed_num(-0x800) == "3800");
  CHECK(signed_num(0) == "80");
  CHECK(signed_num(5) == "85");
  CHECK(signed_num(-1) == "7f");
  CHECK(signed_num(63) == "bf");
  CHECK(signed_num(64) == "c040");
  CHECK(signed_num(-64) == "40");
  CHECK(signed_num(-65) == "3fbf");
  CHECK(signed_num(std::numeric_limits<int64_t>::max()) == "ffc07fffffffffffffff");
  CHECK(signed_num(std::numeric_limits<int64_t>::min()) == "003f8000000000000000");
  // Byte order is value order.
  std::vector<int64_t> values{std::numeric_limits<int64_t>::min(), -70000, -65, -64, -1, 0, 1, 63,
                              64, 8191, 8192, int64_t{1} << 40, std::numeric_limits<int64_t>::max()};
  for (size_t i = 1; i < values.size(); ++i) {
    std::string a, b;
    tf::ordered_code::write_signed_num_increasing(a, values[i - 1]);
    tf::ordered_code::write_signed_num_increasing(b, values[i]);
    CHECK_MESSAGE(a < b, values[i - 1], " < ", values[i]);
  }
  std::string s;
  tf::ordered_code::write_string(s, std::string("a\0b\xff", 4));
  CHECK(hex(s) == "6100ff62ff000001");
  // "emb" rows [4,7) of [10,4]: 0, "emb", rank 2, (4, 3), whole columns as (0, -1).
  CHECK(hex(tf::bundle_slice_key("emb", row_slice(tensor_shape{10, 4}, 4, 3))) ==
        "00" "656d620001" "0102" "84" "83" "80" "7f");
}

TEST_CASE("a partitioned tensor written in slices reads back whole and restores by slice") {
  temp_dir dir("caflow_bundle_sl_");
  const std::string prefix = dir.file("ckpt");
  const tensor full = caflow::testing::iota<float>({10, 4});
  auto rows = [&](int64_t begin, int64_t n) {
    tensor part(dtype::float32, tensor_shape{n, 4});
    copy_slice(full, whole_slice(full.shape()), part, row_slice(full.shape(), begin, n),
               row_slice(full.shape(), begin, n));
    return part;
  };
  {
    tf::bundle_writer w(prefix);
    REQUIRE(w.add("step", tensor::scalar<int64_t>(7)).ok());
    REQUIRE(w.add_slice("emb", row_slice(full.shape(), 4, 3), rows(4, 3)).ok());
    REQUIRE(w.add_slice("emb", row_slice(full.shape(), 0, 4), rows(0, 4)).ok());
    check_error(w.add_slice("emb", row_slice(full.shape(), 6, 2), rows(6, 2)),
                "slice '10 4 6,2:-' of 'emb' overlaps slice '10 4 4,3:-'");
    check_error(w.add_slice("emb", row_slice(tensor_shape{12, 4}, 10, 2), rows(0, 2)),
                "disagrees with an earlier slice on the full shape or dtype");
    check_error(w.add_slice("emb", row_slice(full.shape(), 7, 3), rows(0, 2)),
                "slice '10 4 7,3:-' of 'emb' is shaped [3,4], its value [2,4]");
    check_error(w.add("emb", full), "'emb' is added both whole and in slices");
    REQUIRE(w.add_slice("emb", row_slice(full.shape(), 7, 3), rows(7, 3)).ok());
    REQUIRE(w.finish().ok());
  }
  const tf::bundle_reader r = open(prefix);
  const tf::bundle_entry& e = r.entries().at("emb");
  CHECK(e.slices.size() == 3);
  CHECK(r.names() == "emb, step");  // the slices' own keys are not names
  CHECK(read(r, "emb") == full);

  // RestoreV2's path for TensorFlow bundles: any box of the full tensor, across slices.
  const checkpoint_format* tf_format = checkpoint_format_of(prefix);
  REQUIRE(tf_format != nullptr);
  auto got = tf_format->read(prefix, {"emb", "emb"}, {"10 4 2,5:-", ""}, {dtype::float32, dtype::float32});
  REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
  CHECK(got->at(0) == rows(2, 5));
  CHECK(got->at(1) == full);
  check_error(tf_format->read(prefix, {"emb"}, {"12 4 0,2:-"}, {dtype::float32}),
              "'emb' has shape [10,4], but slice '12 4 0,2:-' is of full shape [12,4]");

  // A slice whose entry is gone, and slices that overlap, are DATA_LOSS naming the tensor.
  std::map<std::string, tfp::BundleEntryProto> entries;
  tfp::BundleEntryProto whole;
  whole.set_dtype(tfp::DT_FLOAT);
  whole.mutable_shape()->add_dim()->set_size(4);
  for (int k = 0; k < 2; ++k) {
    auto* x = whole.add_slices()->add_extent();
    x->set_start(k);
    x->set_length(3);
  }
  entries["v"] = whole;
  write_index(tf::bundle_index_path(dir.file("bad")), entries);
  write_bytes(tf::bundle_data_path(dir.file("bad"), 0, 1), "");
  const tf::bundle_reader bad = open(dir.file("bad"));
  check_error(bad.read("v"), "'v': slices '4 0,3' and '4 1,3' overlap");
}

TEST_CASE("string tensors in a bundle: TensorFlow's layout, both checksums checked") {
  temp_dir dir("caflow_bundle_str_");
  const std::string prefix = dir.file("ckpt");
  const tensor vocab = tensor::from_strings({"the", "", std::string(200, 'x')}, tensor_shape{3});
  REQUIRE(tf::write_bundle(prefix, {{"vocab", vocab}}).ok());
  const tf::bundle_reader r = open(prefix);
  CHECK(read(r, "vocab").equals(vocab));
  // The layout: varint64 lengths (3, 0, 200 as c8 01), the masked CRC-32C of the lengths as
  // uint32s, then the bytes.
  const std::string data = read_bytes(tf::bundle_data_path(prefix, 0, 1));
  REQUIRE(data.size() == 4 + 4 + 203);
  CHECK(data.substr(0, 4) == std::string("\x03\x00\xc8\x01", 4));
  const uint32_t lengths[3] = {3, 0, 200};
  uint32_t stored;
  std::memcpy(&stored, data.data() + 4, 4);
  CHECK(stored == tf::mask_crc(tf::crc32c_extend(0, lengths, sizeof lengths)));
  CHECK(data.substr(8, 3) == "the");
  // A flipped byte in the strings fails the entry's CRC; one in the lengths, theirs.
  std::string bad = data;
  bad[20] ^= 1;
  write_bytes(tf::bundle_data_path(prefix, 0, 1), bad);
  check_error(open(prefix).read("vocab"), "'vocab': CRC-32C");
  bad = data;
  bad[0] = 4;
  write_bytes(tf::bundle_data_path(prefix, 0, 1), bad);
  check_error(open(prefix).read("vocab"), "the string lengths' CRC-32C");
}
