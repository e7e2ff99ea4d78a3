// Partitioners (TF's fixed_size_partitioner and min_max_variable_partitioner counts), shards of
// a partitioned variable (names, shapes, offsets, initial values), the errors that name the
// variable, and replica_device_setter spreading the shards over ps tasks.
#include "graph/client/train/partitioned_variable.hpp"

#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;

namespace {

std::vector<int64_t> parts(const train::partitioner& p, const tensor_shape& shape,
                           dtype type = dtype::float32) {
  auto r = p(shape, type);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

std::string device_of(const scope& s, const output& o) {
  auto n = s.find_node(o.node);
  REQUIRE(n.has_value());
  return n->device;
}

using v64 = std::vector<int64_t>;

}  // namespace

TEST_CASE("fixed_size_partitioner: num_shards along the axis, never more than the axis has") {
  CHECK(parts(train::fixed_size_partitioner(3), {10, 4}) == v64{3, 1});
  CHECK(parts(train::fixed_size_partitioner(4), {2, 4}) == v64{2, 1});
  CHECK(parts(train::fixed_size_partitioner(3, 1), {10, 4}) == v64{1, 3});
  CHECK(parts(train::fixed_size_partitioner(0), {10, 4}) == v64{0, 1});
  check_error(train::fixed_size_partitioner(2, 2)({10, 4}, dtype::float32),
              "fixed_size_partitioner: axis 2 is out of range for shape [10,4]");
}

TEST_CASE("min_max_variable_partitioner: shards of at least min_slice_size bytes, capped") {
  // float32 [1000, 64]: 256-byte rows; 262144 / 256 = 1024 rows fit one slice -> 1 shard.
  CHECK(parts(train::min_max_variable_partitioner(8), {1000, 64}) == v64{1, 1});
  // float64 rows are 512 bytes: 512 rows per slice -> ceil(1000 / 512) = 2.
  CHECK(parts(train::min_max_variable_partitioner(8), {1000, 64}, dtype::float64) == v64{2, 1});
  // 100 rows per 25600-byte slice -> 10 shards, capped at max_partitions.
  CHECK(parts(train::min_max_variable_partitioner(16, 0, 25600), {1000, 64}) == v64{10, 1});
  CHECK(parts(train::min_max_variable_partitioner(8, 0, 25600), {1000, 64}) == v64{8, 1});
  // 1000 rows, 3 rows (3 * 256 = 768 <= 1000 bytes) per slice -> ceil(1000 / 3) = 334.
  CHECK(parts(train::min_max_variable_partitioner(1000, 0, 1000), {1000, 64}) == v64{334, 1});
  // A slice smaller than one row still holds a row: one shard per row.
  CHECK(parts(train::min_max_variable_partitioner(5000, 0, 1), {7, 64}) == v64{7, 1});
  check_error(train::min_max_variable_partitioner(0)({10, 4}, dtype::float32),
              "max_partitions 0 must be at least 1");
}

TEST_CASE("shard_rows: the first rows % n shards get one more row") {
  CHECK(train::shard_rows(10, 3) == v64{4, 3, 3});
  CHECK(train::shard_rows(9, 3) == v64{3, 3, 3});
  CHECK(train::shard_rows(5, 4) == v64{2, 1, 1, 1});
}

TEST_CASE("shards are named name/part_i, sized by TF's rule, and read whole as the full value") {
  auto root = scope::new_root();
  const tensor full = iota<float>({10, 4});
  auto emb = train::create_partitioned_variable(root, "emb", ops::constant(root, full),
                                                train::fixed_size_partitioner(3));
  auto ones = train::create_partitioned_variable(root, "ones", tensor_shape{5, 2}, dtype::float32,
                                                 train::constant_initializer(0.5),
                                                 train::min_max_variable_partitioner(4, 0, 8));
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(emb.name == "emb");
  CHECK(emb.shape == tensor_shape{10, 4});
  CHECK(emb.type == dtype::float32);
  REQUIRE(emb.num_shards() == 3);
  CHECK(emb.shards[0].name() == "emb/part_0");
  CHECK(emb.shards[1].name() == "emb/part_1");
  CHECK(emb.shards[2].name() == "emb/part_2");
  CHECK(emb.offsets == v64{0, 4, 7});
  CHECK(root.shape_of(emb.shards[0].ref) == partial_shape{4, 4});
  CHECK(root.shape_of(emb.shards[2].ref) == partial_shape{3, 4});
  CHECK(emb.shards[1].initializer.node == "emb/part_1/Assign");
  // 8-byte rows at 8 bytes per slice: one row per shard, capped at 4 -> [2, 1, 1, 1] rows.
  REQUIRE(ones.num_shards() == 4);
  CHECK(ones.offsets == v64{0, 2, 3, 4});

  auto whole = emb.as_tensor(root);
  auto ones_whole = ones.as_tensor(root);
  train::variable_set vars;
  vars.add(emb.shards);
  vars.add(ones.shards);
  auto init = train::global_variables_initializer(root, vars);
  session sess(root);
  REQUIRE(sess.run_targets({init}).ok());
  auto out = sess.run({whole, ones_whole, emb.shards[1].ref});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), full);
  check_tensor(out->at(1), {5, 2}, std::vector<float>(10, 0.5f));
  // Shard 1 holds rows 4..6 of the full value.
  check_tensor(out->at(2), {3, 4},
               std::vector<float>{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27});
}

TEST_CASE("one shard reads whole through an Identity") {
  auto root = scope::new_root();
  auto v = train::create_partitioned_variable(root, "v", tensor_shape{3}, dtype::float32,
                                              train::ones_initializer(),
                                              train::fixed_size_partitioner(1));
  auto whole = v.as_tensor(root);
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(v.shards[0].name() == "v/part_0");
  session sess(root);
  REQUIRE(sess.run_targets({v.shards[0].initializer}).ok());
  auto out = sess.run({whole});
  REQUIRE(out.ok());
  check_tensor(out->at(0), {3}, std::vector<float>{1, 1, 1});
}

TEST_CASE("a partitioner that cannot cut the variable is an error naming it") {
  const auto fails = [](const train::partitioner& p, const tensor_shape& shape) {
    auto root = scope::new_root();
    auto v = train::create_partitioned_variable(root, "table", shape, dtype::float32,
                                                train::zeros_initializer(), p);
    CHECK_FALSE(v.valid());
    return root.get_status();
  };
  check_error(fails(train::fixed_size_partitioner(0), {10, 4}),
              "partitioned variable 'table' of shape [10,4]: the partitioner gave 0 partitions "
              "along dimension 0; at least 1 needed");
  const train::partitioner five = [](const tensor_shape&, dtype) -> status_or<v64> {
    return v64{5, 1};
  };
  check_error(fails(five, {3, 4}),
              "partitioned variable 'table' of shape [3,4]: cannot make 5 shards of 3 rows");
  const status axis1 = fails(train::fixed_size_partitioner(2, 1), {10, 4});
  check_error(axis1,
              "partitioned variable 'table' of shape [10,4]: partitioning along "
              "dimension 1 (only dimension 0 is supported)");
  CHECK(axis1.code() == error_code::unimplemented);
  check_error(fails(train::fixed_size_partitioner(2), {}),
              "partitioned variable 'table' of shape []: a scalar cannot be partitioned");
  check_error(fails(five, {10, 4, 2}),
              "partitioned variable 'table' of shape [10,4,2]: the partitioner gave 2 partition "
              "counts for rank 3");
  check_error(fails(train::min_max_variable_partitioner(0), {10, 4}),
              "partitioned variable 'table' of shape [10,4]: min_max_variable_partitioner: "
              "max_partitions 0 must be at least 1");

  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  train::create_partitioned_variable(root, "unknown", x, train::fixed_size_partitioner(2));
  check_error(root.get_status(), "partitioned variable 'unknown': the initial value");
}

TEST_CASE("replica_device_setter puts consecutive shards on different ps tasks") {
  auto root = scope::new_root().with_device_function(
      train::replica_device_setter({.ps_tasks = 3, .worker_device = "/job:worker/task:0"}));
  auto before = train::create_variable(root, "before", tensor_shape{2}, dtype::float32,
                                       train::zeros_initializer());
  auto emb = train::create_partitioned_variable(root, "emb", tensor_shape{10, 4}, dtype::float32,
                                                train::zeros_initializer(),
                                                train::fixed_size_partitioner(3));
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(device_of(root, before.ref) == "/job:ps/task:0");
  CHECK(device_of(root, emb.shards[0].ref) == "/job:ps/task:1");
  CHECK(device_of(root, emb.shards[1].ref) == "/job:ps/task:2");
  CHECK(device_of(root, emb.shards[2].ref) == "/job:ps/task:0");

  // Greedy placement alone would stack both shards on the emptier task 1 (80 and 160 bytes,
  // both under task 0's 4000); shards of one variable avoid each other's tasks instead.
  auto greedy = scope::new_root().with_device_function(train::replica_device_setter(
      {.ps_tasks = 2, .strategy = train::ps_strategy::greedy_by_bytes}));
  auto big = train::create_variable(greedy, "big", tensor_shape{100, 10}, dtype::float32,
                                    train::zeros_initializer());
  auto table = train::create_partitioned_variable(greedy, "table", tensor_shape{10, 4},
                                                  dtype::float32, train::zeros_initializer(),
                                                  train::fixed_size_partitioner(2));
  auto after = train::create_variable(greedy, "after", tensor_shape{1}, dtype::float32,
                                      train::zeros_initializer());
  REQUIRE_MESSAGE(greedy.ok(), greedy.get_status().to_string());
  CHECK(device_of(greedy, big.ref) == "/job:ps/task:0");
  CHECK(device_of(greedy, table.shards[0].ref) == "/job:ps/task:1");
  CHECK(device_of(greedy, table.shards[1].ref) == "/job:ps/task:0");
  CHECK(device_of(greedy, after.ref) == "/job:ps/task:1");  // 80 < 4080 bytes
}
