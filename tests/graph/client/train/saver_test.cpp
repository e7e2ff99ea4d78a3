// SaveV2/RestoreV2 kernels and train::saver: round trips of every dtype, keep_last, and the
// failures a checkpoint directory meets in practice (corrupt, truncated or missing files, a
// leftover temporary file, a forged size), each reported with the file's name.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "devices/counting_allocator.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/io_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/train/saver.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/checkpoint_reader.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::temp_dir;
using caflow::testing::run_kernel;
namespace fs = std::filesystem;

namespace {


std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::map<std::string, attr_value> io_attrs(std::vector<std::string> names, std::vector<dtype> types) {
  return {{"tensor_names", std::move(names)}, {"dtypes", std::move(types)}};
}

// Six tensors, one per dtype, of assorted ranks including a scalar and a zero-size one.
struct sample {
  std::vector<std::string> names{"f32", "f64", "i32_empty", "i64", "u8", "flags"};
  std::vector<dtype> types{dtype::float32, dtype::float64, dtype::int32,
                           dtype::int64,   dtype::uint8,   dtype::boolean};
  std::vector<tensor> values{
      tensor::from_vector<float>({1.5f, -2, 3, 0.25f, 5, 6}, {2, 3}),
      tensor::scalar<double>(-7.125),
      tensor::from_vector<int32_t>({}, {0, 4}),
      tensor::from_vector<int64_t>({int64_t{1} << 40, -1, 0, 42}, {4}),
      tensor::from_vector<uint8_t>({0, 255, 7, 8}, {2, 1, 2}),
      tensor::from_vector<bool>({true, false, true}, {3})};
};

status save_with_kernel(const std::string& path, const sample& s) {
  std::vector<tensor> inputs{checkpoint::path_tensor(path)};
  inputs.insert(inputs.end(), s.values.begin(), s.values.end());
  return run_kernel("SaveV2", inputs, io_attrs(s.names, s.types)).get_status();
}

}  // namespace

TEST_CASE("SaveV2 then RestoreV2 round-trips every dtype, a scalar and a zero-size tensor") {
  temp_dir dir("caflow_saver_test_");
  const sample s;
  const std::string path = dir.file("all_types");
  REQUIRE(save_with_kernel(path, s).ok());

  auto out = run_kernel("RestoreV2", {checkpoint::path_tensor(path)}, io_attrs(s.names, s.types));
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  REQUIRE(out->size() == 6);
  check_tensor(out->at(0), {2, 3}, std::vector<float>{1.5f, -2, 3, 0.25f, 5, 6});
  check_tensor(out->at(1), {}, std::vector<double>{-7.125});
  check_tensor(out->at(2), {0, 4}, std::vector<int32_t>{});
  check_tensor(out->at(3), {4}, std::vector<int64_t>{int64_t{1} << 40, -1, 0, 42});
  check_tensor(out->at(4), {2, 1, 2}, std::vector<uint8_t>{0, 255, 7, 8});
  check_tensor(out->at(5), {3}, std::vector<bool>{true, false, true});

  // A subset, in another order.
  auto some = run_kernel("RestoreV2", {checkpoint::path_tensor(path)},
                         io_attrs({"u8", "f64"}, {dtype::uint8, dtype::float64}));
  REQUIRE(some.ok());
  check_tensor(some->at(0), {2, 1, 2}, std::vector<uint8_t>{0, 255, 7, 8});
  check_tensor(some->at(1), {}, std::vector<double>{-7.125});
}

TEST_CASE("a checkpoint reader takes the restored tensors' bytes from the allocator it is given") {
  temp_dir dir("caflow_saver_test_");
  const sample s;
  const std::string path = dir.file("all_types");
  REQUIRE(save_with_kernel(path, s).ok());
  auto counted = std::make_shared<counting_allocator>("restore", default_allocator());
  {
    auto reader = checkpoint_reader::open({path}, counted);
    REQUIRE_MESSAGE(reader.ok(), reader.get_status().to_string());
    auto f32 = reader->lookup("f32", "", dtype::float32);
    REQUIRE(f32.ok());
    check_tensor(*f32, {2, 3}, std::vector<float>{1.5f, -2, 3, 0.25f, 5, 6});
    // Every tensor of the file, at least the float32 one's 24 bytes, is held there.
    CHECK(counted->stats().bytes_in_use >= 24);
    CHECK(counted->stats().num_allocs >= 1);
  }
  CHECK(counted->stats().bytes_in_use == 0);  // all of it given back with the reader
}

TEST_CASE("RestoreV2 errors name the file and the tensor") {
  temp_dir dir("caflow_saver_test_");
  const sample s;
  const std::string path = dir.file("ckpt");
  REQUIRE(save_with_kernel(path, s).ok());
  const tensor prefix = checkpoint::path_tensor(path);

  check_error(run_kernel("RestoreV2", {prefix}, io_attrs({"nope"}, {dtype::float32})),
              "checkpoint file '" + path + "' has no tensor named 'nope'");
  check_error(run_kernel("RestoreV2", {prefix}, io_attrs({"f32"}, {dtype::int32})),
              "holds 'f32' as float32[2,3], expected int32");
  const std::string missing = dir.file("missing");
  auto gone = run_kernel("RestoreV2", {checkpoint::path_tensor(missing)},
                         io_attrs({"f32"}, {dtype::float32}));
  check_error(gone, "open '" + missing + "'");
  CHECK(gone.get_status().code() == error_code::not_found);
  check_error(caflow::testing::run_kernel_unchecked(
                  "RestoreV2", {tensor::from_vector<uint8_t>({'a', 'b'}, {1, 2})},
                  io_attrs({"f32"}, {dtype::float32})),
              "prefix must be a vector of the path's bytes, got shape [1,2]");
  check_error(run_kernel("RestoreV2", {tensor::from_vector<uint8_t>({})},
                         io_attrs({"f32"}, {dtype::float32})),
              "prefix is an empty path");
}

TEST_CASE("SaveV2 and RestoreV2 refuse inconsistent attrs at graph construction") {
  const tensor prefix = checkpoint::path_tensor("/nonexistent/x");
  check_error(run_kernel("RestoreV2", {prefix}, io_attrs({"a", "b"}, {dtype::float32})),
              "tensor_names has 2 entries for 1 tensors");
  check_error(run_kernel("RestoreV2", {prefix}, io_attrs({"a", "a"}, {dtype::float32, dtype::int32})),
              "tensor name 'a' appears twice");
  auto attrs = io_attrs({"a"}, {dtype::float32});
  attrs["shape_and_slices"] = std::vector<std::string>{"4 1,9"};
  check_error(run_kernel("RestoreV2", {prefix}, attrs),
              "shape_and_slices[0] of 'a': shape_and_slice '4 1,9': extent 1,9 lies outside "
              "dimension 0 of size 4");
  attrs["shape_and_slices"] = std::vector<std::string>{"4 2"};
  check_error(run_kernel("RestoreV2", {prefix}, attrs), "is neither '-' nor 'start,length'");
  check_error(run_kernel("RestoreV2", {prefix}, io_attrs({"a:0"}, {dtype::float32})),
              "tensor name 'a:0' is empty or holds ':'");
  check_error(run_kernel("SaveV2", {prefix, tensor::scalar(1.0f), tensor::scalar(2.0f)},
                         io_attrs({"a"}, {dtype::float32, dtype::float32})),
              "tensor_names has 1 entries for 2 tensors");
}

TEST_CASE("a corrupted or truncated file is detected by its checksum and named") {
  temp_dir dir("caflow_saver_test_");
  const sample s;
  const std::string path = dir.file("ckpt");
  REQUIRE(save_with_kernel(path, s).ok());
  const std::string good = read_bytes(path);
  const auto restore = [&] {
    return run_kernel("RestoreV2", {checkpoint::path_tensor(path)},
                      io_attrs({"f32"}, {dtype::float32}));
  };

  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
  write_bytes(path, flipped);
  auto corrupt = restore();
  check_error(corrupt, "checkpoint file '" + path + "'");
  check_error(corrupt, "checksum mismatch");
  CHECK(corrupt.get_status().code() == error_code::data_loss);

  write_bytes(path, good.substr(0, good.size() - 9));
  check_error(restore(), "truncated");
  write_bytes(path, "");
  check_error(restore(), "not a caflow archive");
}

TEST_CASE("a tensor announcing an absurd size is refused before anything is allocated") {
  temp_dir dir("caflow_saver_test_");
  const std::string path = dir.file("forged");
  // Shape [12345]; the dimension is then rewritten to 2^40 and the envelope resealed, as a
  // malicious writer would, so only the payload parser stands in the way.
  const std::vector<named_tensor> honest{{"t", tensor::filled<float>({12345}, 0.5f)}};
  std::string bytes = serialize_tensors(honest);
  const int64_t dim = 12345, forged = int64_t{1} << 40;
  char pattern[8];
  std::memcpy(pattern, &dim, 8);
  const size_t at = bytes.find(std::string_view(pattern, 8));
  REQUIRE(at != std::string::npos);
  std::memcpy(bytes.data() + at, &forged, 8);
  write_bytes(path, detail::reseal_for_testing(bytes));

  auto out = run_kernel("RestoreV2", {checkpoint::path_tensor(path)},
                        io_attrs({"t"}, {dtype::float32}));
  check_error(out, "tensor float32[1099511627776] needs 4398046511104 bytes, but only");
  check_error(out, path);
}

namespace {

// Four variables of different dtypes in one graph, and a way to overwrite them.
struct model {
  scope root = scope::new_root();
  train::variable w, b, step, flag;
  train::variable_set vars;
  operation init;
  output new_w;
  operation set_w;

  model() {
    w = train::create_variable(root, "w", ops::constant(root, std::vector<float>{1, 2, 3, 4}, {2, 2}));
    b = train::create_variable(root, "b", ops::constant(root, std::vector<double>{0.5, -0.5, 9}, {3}));
    step = train::create_variable(root, "global_step", ops::constant(root, tensor::scalar<int64_t>(0)));
    flag = train::create_variable(root, "flag", ops::constant(root, tensor::scalar(true)));
    vars = train::variable_set{w, b, step, flag};
    init = train::global_variables_initializer(root, vars);
    new_w = ops::placeholder(root.with_op_name("new_w"), dtype::float32);
    const output a = ops::assign(root, w, new_w);
    set_w = {a.node, {a.type}};
  }
  std::vector<tensor> read(session& sess) {
    auto out = sess.run({w, b, step, flag});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    return std::move(out).value();
  }
  void assign_w(session& sess, std::vector<float> v) {
    REQUIRE(sess.run_targets({set_w}, {{new_w, tensor::from_vector<float>(v, {2, 2})}}).ok());
  }
};

std::string shard(const temp_dir& d, int64_t step) {
  return d.file(checkpoint::shard_file_name(step, 0, 1));
}

}  // namespace

TEST_CASE("saver: save, change, restore the newest; a fresh graph restores without init") {
  temp_dir dir("caflow_saver_test_");
  model m;
  train::saver saver(m.root, m.vars);
  REQUIRE_MESSAGE(m.root.ok(), m.root.get_status().to_string());
  CHECK(saver.num_shards() == 1);
  session sess(m.root);
  REQUIRE(sess.run_targets({m.init}).ok());

  auto first = saver.save(sess, dir.path.string(), 10);
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  CHECK(*first == dir.file("ckpt-10.index"));
  m.assign_w(sess, {5, 6, 7, 8});
  REQUIRE(saver.save(sess, dir.path.string(), 20).ok());
  m.assign_w(sess, {0, 0, 0, 0});
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{20, 10});

  auto restored = saver.restore_latest(sess, dir.path.string());
  REQUIRE_MESSAGE(restored.ok(), restored.get_status().to_string());
  CHECK(restored->step == 20);
  CHECK(restored->skipped.empty());
  check_tensor(m.read(sess)[0], {2, 2}, std::vector<float>{5, 6, 7, 8});

  // Another process would build the same graph and restore instead of initializing.
  model fresh;
  train::saver fresh_saver(fresh.root, fresh.vars);
  session fresh_sess(fresh.root);
  auto again = fresh_saver.restore_latest(fresh_sess, dir.path.string());
  REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
  const auto v = fresh.read(fresh_sess);
  check_tensor(v[0], {2, 2}, std::vector<float>{5, 6, 7, 8});
  check_tensor(v[1], {3}, std::vector<double>{0.5, -0.5, 9});
  check_tensor(v[2], {}, std::vector<int64_t>{0});
  check_tensor(v[3], {}, std::vector<bool>{true});
}

TEST_CASE("saver: a corrupt or truncated newest checkpoint is named and the previous one used") {
  temp_dir dir("caflow_saver_test_");
  model m;
  train::saver saver(m.root, m.vars);
  session sess(m.root);
  REQUIRE(sess.run_targets({m.init}).ok());
  REQUIRE(saver.save(sess, dir.path.string(), 10).ok());
  m.assign_w(sess, {5, 6, 7, 8});
  REQUIRE(saver.save(sess, dir.path.string(), 20).ok());
  m.assign_w(sess, {9, 9, 9, 9});
  REQUIRE(saver.save(sess, dir.path.string(), 30).ok());

  std::string bytes = read_bytes(shard(dir, 30));
  bytes[bytes.size() - 3] = static_cast<char>(bytes[bytes.size() - 3] ^ 1);
  write_bytes(shard(dir, 30), bytes);
  const std::string truncated = read_bytes(shard(dir, 20));
  write_bytes(shard(dir, 20), truncated.substr(0, truncated.size() / 2));

  auto restored = saver.restore_latest(sess, dir.path.string());
  REQUIRE_MESSAGE(restored.ok(), restored.get_status().to_string());
  CHECK(restored->step == 10);
  CHECK(restored->index_file == dir.file("ckpt-10.index"));
  REQUIRE(restored->skipped.size() == 2);
  CHECK(restored->skipped[0].message().find(shard(dir, 30)) != std::string::npos);
  CHECK(restored->skipped[0].message().find("checksum mismatch") != std::string::npos);
  CHECK(restored->skipped[1].message().find(shard(dir, 20)) != std::string::npos);
  CHECK(restored->skipped[1].message().find("truncated") != std::string::npos);
  check_tensor(m.read(sess)[0], {2, 2}, std::vector<float>{1, 2, 3, 4});

  // A corrupt index is named too; with nothing left, the error lists every failure.
  write_bytes(dir.file("ckpt-10.index"), "garbage");
  auto none = saver.restore_latest(sess, dir.path.string());
  check_error(none, "none of the 3 checkpoints");
  check_error(none, dir.file("ckpt-10.index"));
  CHECK(none.get_status().code() == error_code::data_loss);
}

TEST_CASE("saver: keep_last deletes the oldest; a leftover temporary file is ignored") {
  temp_dir dir("caflow_saver_test_");
  model m;
  train::saver saver(m.root, m.vars, {.keep_last = 2});
  session sess(m.root);
  REQUIRE(sess.run_targets({m.init}).ok());
  for (int64_t step : {1, 2, 3}) {
    m.assign_w(sess, {float(step), 0, 0, 0});
    REQUIRE(saver.save(sess, dir.path.string(), step).ok());
  }
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{3, 2});
  CHECK_FALSE(fs::exists(shard(dir, 1)));
  CHECK_FALSE(fs::exists(dir.file("ckpt-1.index")));
  CHECK(fs::exists(shard(dir, 2)));

  // A writer killed between creating and renaming its files leaves only temporaries behind.
  write_bytes(shard(dir, 4) + ".tmp-999-0", "half a shard");
  write_bytes(dir.file("ckpt-4.index.tmp-999-1"), "half an index");
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{3, 2});
  m.assign_w(sess, {0, 0, 0, 0});
  auto restored = saver.restore_latest(sess, dir.path.string());
  REQUIRE(restored.ok());
  CHECK(restored->step == 3);
  CHECK(restored->skipped.empty());
  check_tensor(m.read(sess)[0], {2, 2}, std::vector<float>{3, 0, 0, 0});

  // Nor is an orphan shard whose index was never written. Saves clean both up once their
  // step is older than the oldest checkpoint kept.
  write_bytes(shard(dir, 5), read_bytes(shard(dir, 3)));
  CHECK(saver.restore_latest(sess, dir.path.string())->step == 3);
  REQUIRE(saver.save(sess, dir.path.string(), 6).ok());
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{6, 3});
  CHECK_FALSE(fs::exists(shard(dir, 2)));
  CHECK(fs::exists(shard(dir, 4) + ".tmp-999-0"));  // newer than 3: maybe still being written
  REQUIRE(saver.save(sess, dir.path.string(), 7).ok());
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{7, 6});
  CHECK_FALSE(fs::exists(shard(dir, 3)));
  CHECK_FALSE(fs::exists(shard(dir, 4) + ".tmp-999-0"));
  CHECK_FALSE(fs::exists(dir.file("ckpt-4.index.tmp-999-1")));
  CHECK_FALSE(fs::exists(shard(dir, 5)));
}

TEST_CASE("saver: a save older than the newest checkpoint supersedes the newer ones") {
  temp_dir dir("caflow_saver_test_");
  model m;
  train::saver saver(m.root, m.vars);
  session sess(m.root);
  REQUIRE(sess.run_targets({m.init}).ok());
  REQUIRE(saver.save(sess, dir.path.string(), 100).ok());
  REQUIRE(saver.save(sess, dir.path.string(), 50).ok());
  CHECK(train::saver::checkpoint_steps(dir.path.string()) == std::vector<int64_t>{50});
  CHECK_FALSE(fs::exists(shard(dir, 100)));
}

TEST_CASE("saver: errors without checkpoints or variables") {
  temp_dir dir("caflow_saver_test_");
  model m;
  train::saver saver(m.root, m.vars);
  session sess(m.root);
  auto none = saver.restore_latest(sess, dir.path.string());
  check_error(none, "no checkpoint in");
  CHECK(none.get_status().code() == error_code::not_found);

  auto root = scope::new_root();
  train::saver empty(root, {});
  check_error(root.get_status(), "saver: no variables to save");
  auto bad_keep = scope::new_root();
  train::saver keep0(bad_keep, m.vars, {.keep_last = 0});
  check_error(bad_keep.get_status(), "keep_last must be at least 1, got 0");
}

TEST_CASE("saver on a cluster: one shard per ps task, slots go with their variable's task") {
  auto cluster = caflow::testing::start_in_process_cluster(2, 1);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;  // ps 0, ps 1, worker 0

  temp_dir dir("caflow_saver_test_");
  auto root = scope::new_root();
  const auto ps = [&](int task) { return root.with_device(full_device_name("ps", task, "CPU", 0)); };
  auto w = train::create_variable(ps(0), "w", ops::constant(root, std::vector<float>{1, 2}, {2}));
  auto b = train::create_variable(ps(1), "b", ops::constant(root, std::vector<int32_t>{7}, {1}));
  // Placed only by colocation, as optimizer slots are.
  auto w_slot = train::create_variable(root.colocate_with(w.ref), "w_slot",
                                       ops::constant(root, tensor::scalar(3.0)));
  train::variable_set vars{w, b, w_slot};
  auto init = train::global_variables_initializer(root, vars);
  train::saver saver(root, vars);
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  REQUIRE(saver.num_shards() == 2);

  session sess(root, {.target = servers[2]->target()});
  REQUIRE(sess.run_targets({init}).ok());
  auto saved = saver.save(sess, dir.path.string(), 5);
  REQUIRE_MESSAGE(saved.ok(), saved.get_status().to_string());

  auto first = checkpoint::read_tensors(dir.file(checkpoint::shard_file_name(5, 0, 2)));
  auto second = checkpoint::read_tensors(dir.file(checkpoint::shard_file_name(5, 1, 2)));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  REQUIRE(first->size() == 2);
  CHECK(first->at(0).first == "w");
  check_tensor(first->at(0).second, {2}, std::vector<float>{1, 2});
  CHECK(first->at(1).first == "w_slot");
  check_tensor(first->at(1).second, {}, std::vector<double>{3.0});
  REQUIRE(second->size() == 1);
  CHECK(second->at(0).first == "b");
  check_tensor(second->at(0).second, {1}, std::vector<int32_t>{7});

  // A fresh client of the same cluster restores both shards.
  auto root2 = scope::new_root();
  auto w2 = train::create_variable(root2.with_device(full_device_name("ps", 0, "CPU", 0)), "w",
                                   ops::constant(root2, std::vector<float>{0, 0}, {2}));
  auto b2 = train::create_variable(root2.with_device(full_device_name("ps", 1, "CPU", 0)), "b",
                                   ops::constant(root2, std::vector<int32_t>{0}, {1}));
  auto slot2 = train::create_variable(root2.colocate_with(w2.ref), "w_slot",
                                      ops::constant(root2, tensor::scalar(0.0)));
  train::saver saver2(root2, train::variable_set{w2, b2, slot2});
  session sess2(root2, {.target = servers[2]->target()});
  auto restored = saver2.restore_latest(sess2, dir.path.string());
  REQUIRE_MESSAGE(restored.ok(), restored.get_status().to_string());
  CHECK(restored->step == 5);
  auto values = sess2.run({w2.ref, b2.ref, slot2.ref});
  REQUIRE(values.ok());
  check_tensor(values->at(0), {2}, std::vector<float>{1, 2});
  check_tensor(values->at(1), {1}, std::vector<int32_t>{7});
  check_tensor(values->at(2), {}, std::vector<double>{3.0});
}
