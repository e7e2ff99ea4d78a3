// nn::embedding_lookup against a plain GatherV2 on the unpartitioned table ("mod" and "div",
// duplicate and 2-D ids, int32 and int64), embedding_lookup_sparse's combiners against values
// worked out by hand, and the errors of ids outside the table.
#include "graph/client/train/embedding_lookup.hpp"

#include <doctest/doctest.h>

#include <random>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/initializers.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

constexpr int64_t rows = 10, dim = 3;

// A [10, 3] table of distinct values.
tensor full_table() {
  std::vector<float> v(rows * dim);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
  return tensor::from_vector<float>(v, {rows, dim});
}

// The table's rows `pick` as a Const.
output rows_of(const scope& s, const tensor& table, const std::vector<int64_t>& pick) {
  std::vector<float> v;
  for (int64_t r : pick)
    for (int64_t c = 0; c < dim; ++c) v.push_back(table.data<float>()[r * dim + c]);
  return ops::constant(s, v, {static_cast<int64_t>(pick.size()), dim});
}

// TF's layouts of ids over n shards: "mod" puts id on shard id % n, "div" gives shards
// consecutive ranges, the first rows % n one id more.
std::vector<output> mod_shards(const scope& s, const tensor& table, int64_t n) {
  std::vector<output> out;
  for (int64_t p = 0; p < n; ++p) {
    std::vector<int64_t> pick;
    for (int64_t id = p; id < rows; id += n) pick.push_back(id);
    out.push_back(rows_of(s, table, pick));
  }
  return out;
}

std::vector<output> div_shards(const scope& s, const tensor& table, int64_t n) {
  std::vector<output> out;
  int64_t first = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t count = rows / n + (p < rows % n ? 1 : 0);
    std::vector<int64_t> pick;
    for (int64_t id = first; id < first + count; ++id) pick.push_back(id);
    out.push_back(rows_of(s, table, pick));
    first += count;
  }
  return out;
}

template <class T>
tensor random_ids(std::mt19937& gen, const tensor_shape& shape) {
  std::uniform_int_distribution<int> pick(0, rows - 1);
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  for (T& x : v) x = static_cast<T>(pick(gen));
  v[0] = v.back();  // at least one duplicate
  return tensor::from_vector<T>(v, shape);
}

std::vector<tensor> run(const scope& root, const std::vector<output>& fetches) {
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root);
  auto out = sess.run(fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

status run_error(const scope& root, const std::vector<output>& fetches) {
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root);
  auto out = sess.run(fetches);
  REQUIRE_FALSE(out.ok());
  return out.get_status();
}

}  // namespace

TEST_CASE("mod and div lookups over 1 to 4 shards equal a gather on the whole table") {
  std::mt19937 gen(7);
  const tensor table = full_table();
  for (int64_t n = 1; n <= 4; ++n) {
    CAPTURE(n);
    for (const tensor_shape& shape : {tensor_shape{12}, tensor_shape{4, 5}}) {
      const tensor ids64 = random_ids<int64_t>(gen, shape);
      const tensor ids32 = random_ids<int32_t>(gen, shape);
      auto root = scope::new_root();
      const output whole = ops::constant(root, table);
      std::vector<output> fetches, expected;
      for (const tensor& ids_t : {ids64, ids32}) {
        const output ids = ops::constant(root, ids_t);
        fetches.push_back(nn::embedding_lookup(root, mod_shards(root, table, n), ids));
        fetches.push_back(nn::embedding_lookup(root, div_shards(root, table, n), ids,
                                               {.partition_strategy = "div"}));
        expected.push_back(ops::gather(root, whole, ids));
        expected.push_back(expected.back());
      }
      // Static shapes survive: ids.shape + [dim].
      std::vector<int64_t> want = shape.dim_vector();
      want.push_back(dim);
      CHECK(root.shape_of(fetches[0]) == partial_shape(std::span<const int64_t>(want)));
      const size_t k = fetches.size();
      fetches.insert(fetches.end(), expected.begin(), expected.end());
      const std::vector<tensor> out = run(root, fetches);
      for (size_t i = 0; i < k; ++i) check_tensor(out[i], out[k + i], 0);
    }
  }
}

TEST_CASE("a partitioned variable looks up as its full initial value does (div), shape unknown") {
  const tensor table = full_table();
  auto root = scope::new_root();
  auto emb = train::create_partitioned_variable(root, "emb", ops::constant(root, table),
                                                train::fixed_size_partitioner(3));
  // ids of unknown shape: the result is reshaped at run time.
  auto ids = ops::placeholder(root, dtype::int64);
  auto got = nn::embedding_lookup(root, emb, ids, {.partition_strategy = "div"});
  auto want = ops::gather(root, ops::constant(root, table), ids);
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  train::variable_set vars;
  vars.add(emb.shards);
  auto init = train::global_variables_initializer(root, vars);
  session sess(root);
  REQUIRE(sess.run_targets({init}).ok());
  const tensor ids_t = tensor::from_vector<int64_t>({9, 0, 4, 3, 7, 6, 4, 9}, {2, 2, 2});
  auto out = sess.run({{ids, ids_t}}, {got, want});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).shape() == tensor_shape{2, 2, 2, 3});
  check_tensor(out->at(0), out->at(1), 0);
  // Gathers are colocated with their shards, lookups named under embedding_lookup/.
  auto gather = root.find_node("embedding_lookup/GatherV2_1");
  REQUIRE(gather.has_value());
  CHECK(gather->op == "GatherV2");
  CHECK(gather->attrs.at("_class").get<std::vector<std::string>>() ==
        std::vector<std::string>{"loc:@emb/part_1"});
}

TEST_CASE("ids outside the table fail in the node that meets them") {
  const tensor table = full_table();
  const auto lookup_error = [&](int64_t n, const std::string& strategy, int64_t id) {
    auto root = scope::new_root();
    auto ids = ops::constant(root, tensor::from_vector<int64_t>({1, id}, {2}));
    auto out = nn::embedding_lookup(root, div_shards(root, table, n), ids,
                                    {.partition_strategy = strategy});
    return run_error(root, {out});
  };
  // One shard: the gather itself.
  check_error(lookup_error(1, "mod", 10), "node 'embedding_lookup/GatherV2'");
  check_error(lookup_error(1, "mod", 10), "indices[1] = 10 is not in [0, 10)");
  check_error(lookup_error(1, "mod", -1), "indices[1] = -1 is not in [0, 10)");
  // mod over 3 shards: 10 is row 3 of shard 1 (3 rows); -1 is row -1 of shard 2.
  check_error(lookup_error(3, "mod", 10), "node 'embedding_lookup/GatherV2_1'");
  check_error(lookup_error(3, "mod", 10), "= 3 is not in [0, 3)");
  check_error(lookup_error(3, "mod", -1), "node 'embedding_lookup/GatherV2_2'");
  check_error(lookup_error(3, "mod", -1), "= -1 is not in [0, 3)");
  // div over 3 shards: 10 and -1 lie beyond every shard's range.
  check_error(lookup_error(3, "div", 10), "DynamicPartition");
  check_error(lookup_error(3, "div", -1), "DynamicPartition");
}

TEST_CASE("embedding_lookup's construction errors") {
  auto root = scope::new_root();
  auto table = ops::constant(root, full_table());
  auto ids = ops::constant(root, tensor::from_vector<int64_t>({1}, {1}));
  nn::embedding_lookup(root, table, ids, {.partition_strategy = "range"});
  check_error(root.get_status(), "partition_strategy must be 'mod' or 'div', not 'range'");
  auto r2 = scope::new_root();
  nn::embedding_lookup(r2, ops::constant(r2, full_table()), ops::constant(r2, 1.0f));
  check_error(r2.get_status(), "embedding_lookup: ids must be int32 or int64, not float32");
  auto r3 = scope::new_root();
  nn::embedding_lookup(r3, ops::constant(r3, full_table()),
                       ops::constant(r3, tensor::from_vector<int64_t>({1}, {1})),
                       {.max_norm = 1.0});
  check_error(r3.get_status(), "max_norm is not supported");
  // "div" needs a row per shard.
  auto r4 = scope::new_root();
  std::vector<output> tiny = {ops::constant(r4, std::vector<float>{1}, {1, 1}),
                              ops::constant(r4, std::vector<float>{}, {0, 1})};
  nn::embedding_lookup(r4, tiny, ops::constant(r4, tensor::from_vector<int64_t>({0}, {1})),
                       {.partition_strategy = "div"});
  check_error(r4.get_status(), "needs at least one row per shard; 1 rows in 2 shards");
}

// A [5, 2] table in 2 shards (rows 0..2 and 3..4 under "div"); batch of 4 rows where rows 1
// and 3 are empty:  row 0: ids {1, 3} weights {2, 1};  row 2: ids {0, 3, 3} weights {1, .5, .5}.
struct sparse_case {
  scope root = scope::new_root();
  tensor table = tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5, 2});
  std::vector<output> shards = {ops::constant(root, std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2}),
                                ops::constant(root, std::vector<float>{7, 8, 9, 10}, {2, 2})};
  output indices =
      ops::constant(root, tensor::from_vector<int64_t>({0, 0, 0, 1, 2, 0, 2, 1, 2, 2}, {5, 2}));
  output dense_shape = ops::constant(root, tensor::from_vector<int64_t>({4, 3}, {2}));
  nn::sparse_tensor ids{indices,
                        ops::constant(root, tensor::from_vector<int64_t>({1, 3, 0, 3, 3}, {5})),
                        dense_shape};
  nn::sparse_tensor weights{
      indices, ops::constant(root, tensor::from_vector<float>({2, 1, 1, .5f, .5f}, {5})),
      dense_shape};

  output lookup(const std::string& combiner, bool weighted) {
    return nn::embedding_lookup_sparse(
        root, shards, ids, weighted ? std::optional<nn::sparse_tensor>(weights) : std::nullopt,
        {.partition_strategy = "div", .combiner = combiner});
  }
};

TEST_CASE("embedding_lookup_sparse: sum, mean and sqrtn, unweighted; empty rows are zeros") {
  sparse_case c;
  auto sum = c.lookup("sum", false);
  auto mean = c.lookup("mean", false);
  auto sqrtn = c.lookup("sqrtn", false);
  const auto out = run(c.root, {sum, mean, sqrtn});
  // Rows: id 0 = (1, 2), 1 = (3, 4), 3 = (7, 8).
  // row 0: (3,4) + (7,8) = (10, 12);  row 2: (1,2) + 2 * (7,8) = (15, 18).
  check_tensor(out[0], {4, 2}, std::vector<float>{10, 12, 0, 0, 15, 18, 0, 0});
  check_tensor(out[1], {4, 2}, std::vector<float>{5, 6, 0, 0, 5, 6, 0, 0});
  const float r2 = std::sqrt(2.0f), r3 = std::sqrt(3.0f);
  check_tensor(out[2], {4, 2}, std::vector<float>{10 / r2, 12 / r2, 0, 0, 15 / r3, 18 / r3, 0, 0});
}

TEST_CASE("embedding_lookup_sparse: sum, mean and sqrtn with weights") {
  sparse_case c;
  auto sum = c.lookup("sum", true);
  auto mean = c.lookup("mean", true);
  auto sqrtn = c.lookup("sqrtn", true);
  const auto out = run(c.root, {sum, mean, sqrtn});
  // row 0: 2 * (3,4) + 1 * (7,8) = (13, 16), weights sum 3, squares 5.
  // row 2: (1,2) + .5 * (7,8) + .5 * (7,8) = (8, 10), weights sum 2, squares 1.5.
  check_tensor(out[0], {4, 2}, std::vector<float>{13, 16, 0, 0, 8, 10, 0, 0});
  check_tensor(out[1], {4, 2}, std::vector<float>{13.f / 3, 16.f / 3, 0, 0, 4, 5, 0, 0});
  const float q0 = std::sqrt(5.0f), q2 = std::sqrt(1.5f);
  check_tensor(out[2], {4, 2}, std::vector<float>{13 / q0, 16 / q0, 0, 0, 8 / q2, 10 / q2, 0, 0});
}

TEST_CASE("embedding_lookup_sparse: mod over a partitioned variable, and a bad combiner") {
  auto root = scope::new_root();
  const tensor table = full_table();
  auto emb = train::create_partitioned_variable(root, "emb", tensor_shape{rows, dim},
                                                dtype::float32, train::constant_initializer(2),
                                                train::fixed_size_partitioner(4));
  auto ids = nn::sparse_tensor{
      ops::constant(root, tensor::from_vector<int64_t>({0, 0, 0, 1, 1, 0}, {3, 2})),
      ops::constant(root, tensor::from_vector<int64_t>({9, 2, 5}, {3})),
      ops::constant(root, tensor::from_vector<int64_t>({2, 2}, {2}))};
  auto out = nn::embedding_lookup_sparse(root, emb, ids, std::nullopt, {.combiner = "sum"});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  train::variable_set vars;
  vars.add(emb.shards);
  auto init = train::global_variables_initializer(root, vars);
  session sess(root);
  REQUIRE(sess.run_targets({init}).ok());
  auto got = sess.run({out});
  REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
  check_tensor(got->at(0), {2, 3}, std::vector<float>{4, 4, 4, 2, 2, 2});

  nn::embedding_lookup_sparse(root, emb, ids, std::nullopt, {.combiner = "max"});
  check_error(root.get_status(), "combiner must be 'sum', 'mean' or 'sqrtn', not 'max'");
}
