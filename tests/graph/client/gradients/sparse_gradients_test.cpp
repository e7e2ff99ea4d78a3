// IndexedSlices in add_symbolic_gradients: a gather along axis 0 gives its params sparse
// gradients, Identity passes them on, aggregation concatenates them, a dense-only gradient
// function gets them dense (logged), and their dense values equal the dense gradients.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

// A [4, 2] float64 table placeholder and its rows 0..7.
struct table_fixture {
  scope root = scope::new_root();
  output table = ops::placeholder(root.with_op_name("table"), dtype::float64,
                                  {.shape = partial_shape{4, 2}});
  tensor value = tensor::from_vector<double>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  std::vector<std::string> log;
  gradient_options options() {
    return {.stop_gradients = {},
            .log_dense_fallback = [this](std::string_view m) { log.emplace_back(m); }};
  }
  std::vector<gradient_value> grads(const output& y) {
    std::vector<gradient_value> out;
    REQUIRE(add_symbolic_gradients(root, {y}, {table}, {}, options(), &out).ok());
    REQUIRE(out.size() == 1);
    return out;
  }
};

}  // namespace

TEST_CASE("a gather along axis 0 gives IndexedSlices: the gradient's rows at the ids") {
  table_fixture f;
  auto ids = ops::constant(f.root, std::vector<int32_t>{3, 1, 3}, {3});
  auto y = ops::mul(f.root, ops::gather(f.root, f.table, ids),
                    ops::constant(f.root, std::vector<double>{1, 2, 3, 4, 5, 6}, {3, 2}));
  auto g = f.grads(ops::sum(f.root, y, {0, 1}));
  REQUIRE(g[0].is_sparse());
  const indexed_slices& s = g[0].slices();
  auto out = run(f.root, {{f.table, f.value}}, {s.values, s.indices, s.dense_shape,
                                                 grad::to_dense(f.root, g[0])});
  check_tensor<double>(out[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  check_tensor<int32_t>(out[1], {3}, {3, 1, 3});
  check_tensor<int32_t>(out[2], {2}, {4, 2});
  // Dense: row 3 gets both of its rows, rows 0 and 2 nothing.
  check_tensor<double>(out[3], {4, 2}, {0, 0, 3, 4, 0, 0, 6, 8});
  CHECK(f.log.empty());
}

TEST_CASE("Identity passes slices on; two gathers concatenate; a dense use joins as every row") {
  table_fixture f;
  auto read = ops::identity(f.root, f.table);
  auto a = ops::gather(f.root, read, ops::constant(f.root, std::vector<int64_t>{0}, {1}));
  auto b = ops::gather(f.root, read, ops::constant(f.root, std::vector<int64_t>{2, 0}, {2}));
  auto sparse_only = ops::add(f.root, ops::sum(f.root, a, {0, 1}),
                              ops::sum(f.root, b, {0, 1}));
  auto g = f.grads(sparse_only);
  REQUIRE(g[0].is_sparse());
  auto out = run(f.root, {{f.table, f.value}},
                 {g[0].slices().indices, grad::to_dense(f.root, g[0])});
  CHECK(out[0].num_elements() == 3);
  check_tensor<double>(out[1], {4, 2}, {2, 2, 0, 0, 1, 1, 0, 0});

  auto mixed = ops::add(f.root, sparse_only, ops::sum(f.root, read, {0, 1}));
  auto gm = f.grads(mixed);
  REQUIRE(gm[0].is_sparse());  // TF keeps the sum sparse: the dense part names every row
  auto dense = run(f.root, {{f.table, f.value}}, {grad::to_dense(f.root, gm[0])});
  check_tensor<double>(dense[0], {4, 2}, {3, 3, 1, 1, 2, 2, 1, 1});
  CHECK(f.log.empty());
}

TEST_CASE("AddN hands each input the gradient as it is: gathers summed by AddN stay sparse") {
  table_fixture f;
  auto a = ops::gather(f.root, f.table, ops::constant(f.root, std::vector<int32_t>{1}, {1}));
  auto b = ops::gather(f.root, f.table, ops::constant(f.root, std::vector<int32_t>{2}, {1}));
  auto added = ops::add_n(f.root, {a, b});
  auto both = ops::gather(f.root, ops::identity(f.root, f.table),
                          ops::constant(f.root, std::vector<int32_t>{0}, {1}));
  auto g = f.grads(ops::sum(f.root, ops::add_n(f.root, {added, both}), {0, 1}));
  REQUIRE(g[0].is_sparse());
  check_tensor<double>(run(f.root, {{f.table, f.value}}, {grad::to_dense(f.root, g[0])})[0],
                       {4, 2}, {1, 1, 1, 1, 1, 1, 0, 0});
  CHECK(f.log.empty());
}

TEST_CASE("an op whose gradient function takes dense gradients gets them dense, logged") {
  table_fixture f;
  auto doubled = ops::mul(f.root.with_op_name("doubled"), f.table, ops::constant(f.root, 2.0));
  auto y = ops::sum(
      f.root, ops::gather(f.root, doubled, ops::constant(f.root, std::vector<int32_t>{1}, {1})),
      {0, 1});
  auto g = f.grads(y);
  CHECK_FALSE(g[0].is_sparse());
  check_tensor<double>(run(f.root, {{f.table, f.value}}, {g[0].dense()})[0], {4, 2},
                       {0, 0, 2, 2, 0, 0, 0, 0});
  REQUIRE(f.log.size() == 1);
  CHECK(f.log[0].find("to a dense tensor") != std::string::npos);
  CHECK(f.log[0].find("'doubled' (Mul)") != std::string::npos);
}

TEST_CASE("gathers along other axes, or with batch dims, stay dense") {
  table_fixture f;
  auto y = ops::sum(
      f.root, ops::gather(f.root, f.table, ops::constant(f.root, std::vector<int32_t>{1}, {1}), 1),
      {0, 1});
  auto g = f.grads(y);
  CHECK_FALSE(g[0].is_sparse());
  check_tensor<double>(run(f.root, {{f.table, f.value}}, {g[0].dense()})[0], {4, 2},
                       {0, 1, 0, 1, 0, 1, 0, 1});
}

TEST_CASE("finite differences agree with the sparse gradient of a gather with repeated ids") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64, {.shape = partial_shape{4, 2}});
  auto ids = ops::constant(root, std::vector<int32_t>{2, 0, 2, 3}, {2, 2});
  auto y = ops::square(root, ops::gather(root, x, ids));
  testing::check_gradient(root, x, y,
                          tensor::from_vector<double>({0.5, -1, 2, 0.25, 1.5, -2, 3, 1}, {4, 2}));
}

TEST_CASE("deduplicate sums the rows of repeated indices") {
  auto root = scope::new_root();
  indexed_slices s{ops::constant(root, std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2}),
                   ops::constant(root, std::vector<int64_t>{5, 1, 5}, {3}),
                   ops::constant(root, std::vector<int64_t>{8, 2}, {2})};
  auto d = grad::deduplicate(root, s);
  auto out = run(root, {}, {d.indices, d.values});
  check_tensor<int64_t>(out[0], {2}, {5, 1});
  check_tensor<float>(out[1], {2, 2}, {6, 8, 3, 4});
}
