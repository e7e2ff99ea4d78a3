#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::iota;
using caflow::testing::vec32;

namespace {

tensor pads32(std::vector<int32_t> v) {
  return tensor::from_vector<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2});
}

}  // namespace

TEST_CASE("Tile repeats a matrix along both dims") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto out = run_kernel("Tile", {x, vec32({2, 3})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {4, 6},
                      {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  auto rows = run_kernel("Tile", {x, vec32({2, 1})});
  REQUIRE(rows.ok());
  check_tensor<float>(rows->at(0), {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4});
  auto cols = run_kernel("Tile", {x, vec32({1, 2})});
  REQUIRE(cols.ok());
  check_tensor<float>(cols->at(0), {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("Tile of vectors and 3-D tensors, int64 multiples, every element size") {
  auto v = run_kernel("Tile",
                      {tensor::from_vector<int32_t>({1, 2, 3}), tensor::from_vector<int64_t>({3})});
  REQUIRE(v.ok());
  check_tensor<int32_t>(v->at(0), {9}, {1, 2, 3, 1, 2, 3, 1, 2, 3});
  // [[[1, 2]], [[3, 4]]] tiled [1, 3, 2].
  auto t =
      run_kernel("Tile", {tensor::from_vector<uint8_t>({1, 2, 3, 4}, {2, 1, 2}), vec32({1, 3, 2})});
  REQUIRE(t.ok());
  check_tensor<uint8_t>(t->at(0), {2, 3, 4},
                        {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4, 3, 4});
  auto b = run_kernel("Tile", {tensor::from_vector<bool>({true, false}), vec32({2})});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {4}, {true, false, true, false});
  auto d = run_kernel("Tile", {tensor::from_vector<double>({0.5}, {1, 1}), vec32({2, 2})});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {2, 2}, {0.5, 0.5, 0.5, 0.5});
  auto l = run_kernel("Tile", {tensor::from_vector<int64_t>({-7, 8}, {2, 1}), vec32({1, 3})});
  REQUIRE(l.ok());
  check_tensor<int64_t>(l->at(0), {2, 3}, {-7, -7, -7, 8, 8, 8});
}

TEST_CASE("Tile by ones shares the input; by zero is empty") {
  auto x = iota<float>({2, 3});
  auto same = run_kernel("Tile", {x, vec32({1, 1})});
  REQUIRE(same.ok());
  CHECK(same->at(0).shares_buffer_with(x));
  auto none = run_kernel("Tile", {x, vec32({0, 2})});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{0, 6});
  auto of_empty = run_kernel("Tile", {tensor(dtype::int32, {0, 2}), vec32({3, 2})});
  REQUIRE(of_empty.ok());
  CHECK(of_empty->at(0).shape() == tensor_shape{0, 4});
  auto scalar = run_kernel("Tile", {tensor::scalar<int32_t>(4), tensor(dtype::int32, {0})});
  REQUIRE(scalar.ok());
  check_tensor<int32_t>(scalar->at(0), {}, {4});
}

TEST_CASE("Tile of a large tensor") {
  const int64_t r = 500, c = 70;
  auto out = run_kernel("Tile", {iota<int32_t>({r, c}), vec32({3, 4})});
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == tensor_shape{3 * r, 4 * c});
  const int32_t* y = out->at(0).data<int32_t>();
  int bad = 0;
  for (int64_t i = 0; i < 3 * r; ++i)
    for (int64_t j = 0; j < 4 * c; ++j) bad += y[i * 4 * c + j] != (i % r) * c + (j % c);
  CHECK(bad == 0);
}

TEST_CASE("Tile rejects negative multiples and a wrong length") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("Tile", {x, vec32({1, -2})}), "multiples[1] = -2 is negative");
  check_error(run_kernel("Tile", {x, tensor::from_vector<int64_t>({1, int64_t{1} << 62})}),
              "tiling dimension 1 4611686018427387904 times overflows int64");
  check_error(run_kernel("Tile", {x, vec32({2})}),
              "multiples has 1 entries but the input has rank 2");
}

TEST_CASE("Pad surrounds a matrix with zeros") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto out = run_kernel("Pad", {x, pads32({1, 0, 0, 2})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {3, 4}, {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0});
  auto all = run_kernel("Pad", {x, pads32({1, 1, 1, 1})});
  REQUIRE(all.ok());
  check_tensor<float>(all->at(0), {4, 4}, {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0});
}

TEST_CASE("Pad of vectors and 3-D tensors, int64 paddings, every element size") {
  auto v = run_kernel(
      "Pad", {tensor::from_vector<int32_t>({1, 2}), tensor::from_vector<int64_t>({2, 1}, {1, 2})});
  REQUIRE(v.ok());
  check_tensor<int32_t>(v->at(0), {5}, {0, 0, 1, 2, 0});
  // The last dim is not padded: it moves as whole rows.
  auto t = run_kernel(
      "Pad", {tensor::from_vector<double>({1, 2, 3, 4}, {2, 1, 2}), pads32({0, 1, 1, 1, 0, 0})});
  REQUIRE(t.ok());
  check_tensor<double>(t->at(0), {3, 3, 2}, {0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0});
  auto b = run_kernel("Pad", {tensor::from_vector<bool>({true}), pads32({1, 1})});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {3}, {false, true, false});
  auto u = run_kernel("Pad", {tensor::from_vector<uint8_t>({255}, {1, 1}), pads32({0, 1, 1, 0})});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {2, 2}, {0, 255, 0, 0});
  auto l = run_kernel("Pad", {tensor::from_vector<int64_t>({5, 6}, {2, 1}), pads32({0, 0, 0, 1})});
  REQUIRE(l.ok());
  check_tensor<int64_t>(l->at(0), {2, 2}, {5, 0, 6, 0});
}

TEST_CASE("Pad by zeros shares the input; empty inputs pad to zeros") {
  auto x = iota<float>({2, 3});
  auto same = run_kernel("Pad", {x, pads32({0, 0, 0, 0})});
  REQUIRE(same.ok());
  CHECK(same->at(0).shares_buffer_with(x));
  auto empty = run_kernel("Pad", {tensor(dtype::float32, {0, 2}), pads32({1, 1, 0, 0})});
  REQUIRE(empty.ok());
  check_tensor<float>(empty->at(0), {2, 2}, {0, 0, 0, 0});
  auto scalar = run_kernel("Pad", {tensor::scalar<int32_t>(9), tensor(dtype::int32, {0, 2})});
  REQUIRE(scalar.ok());
  check_tensor<int32_t>(scalar->at(0), {}, {9});
}

TEST_CASE("Pad of a large tensor") {
  const int64_t r = 400, c = 300;
  auto out = run_kernel("Pad", {iota<float>({r, c}), pads32({3, 2, 1, 4})});
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == tensor_shape{r + 5, c + 5});
  const float* y = out->at(0).data<float>();
  int bad = 0;
  for (int64_t i = 0; i < r + 5; ++i)
    for (int64_t j = 0; j < c + 5; ++j) {
      const bool inside = i >= 3 && i < 3 + r && j >= 1 && j < 1 + c;
      bad += y[i * (c + 5) + j] != (inside ? float((i - 3) * c + (j - 1)) : 0.0f);
    }
  CHECK(bad == 0);
}

TEST_CASE("Pad rejects negative paddings and a wrong shape") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("Pad", {x, pads32({0, 0, -1, 2})}),
              "paddings must be non-negative, but paddings[1] = [-1, 2]");
  const int64_t huge = int64_t{1} << 62;
  check_error(run_kernel("Pad", {x, tensor::from_vector<int64_t>({0, 0, huge, huge}, {2, 2})}),
              "padding dimension 1 by [4611686018427387904, 4611686018427387904] overflows");
  check_error(run_kernel("Pad", {x, pads32({1, 1})}),
              "paddings has shape [1,2] but the input has rank 2");
  check_error(run_kernel("Pad", {x, tensor::from_vector<int32_t>({1, 1, 1, 1, 1, 1}, {2, 3})}),
              "paddings must have shape [rank,2], got shape [2,3]");
}

TEST_CASE("ops::tile and ops::pad infer shapes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1}});
  CHECK(root.shape_of(ops::tile(root, x, {3, 2})) == partial_shape{6, -1});
  CHECK(root.shape_of(ops::tile(root, x, {1, 0})) == partial_shape{2, 0});
  CHECK(root.shape_of(ops::pad(root, x, {{1, 2}, {0, 3}})) == partial_shape{5, -1});
  auto m = ops::placeholder(root, dtype::int32, {.shape = partial_shape{2}});
  CHECK(root.shape_of(ops::tile(root, x, m)) == partial_shape{-1, -1});
  auto v = ops::placeholder(root, dtype::float32, {.shape = partial_shape{4}});
  CHECK(root.shape_of(ops::pad(root, v, {{0, 1}})) == partial_shape{5});
  REQUIRE(root.ok());
  ops::pad(root.with_op_name("neg"), x, {{0, 0}, {-1, 0}});
  check_error(root.get_status(), "node 'neg' (Pad)");
  check_error(root.get_status(), "paddings must be non-negative, but paddings[1] = [-1, 0]");
}

TEST_CASE("Tile and Pad check fed multiples and paddings at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto multiples = ops::placeholder(root, dtype::int32);
  auto paddings = ops::placeholder(root, dtype::int64);
  auto tiled = ops::tile(root, x, multiples);
  auto padded = ops::pad(root, x, paddings);
  REQUIRE(root.ok());
  session sess(root);
  auto v = tensor::from_vector<float>({1, 2});
  auto ok = sess.run(
      {{x, v}, {multiples, vec32({2})}, {paddings, tensor::from_vector<int64_t>({1, 0}, {1, 2})}},
      {tiled, padded});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {4}, {1, 2, 1, 2});
  check_tensor<float>(ok->at(1), {3}, {0, 1, 2});
  check_error(sess.run({{x, v}, {multiples, vec32({-1})}}, {tiled}),
              "multiples[0] = -1 is negative; multiples [-1]");
  check_error(sess.run({{x, v}, {multiples, vec32({1, 1})}}, {tiled}),
              "multiples must be a vector with one entry per input dimension; input shape [2], "
              "multiples shape [2]");
  check_error(
      sess.run({{x, v}, {paddings, tensor::from_vector<int64_t>({0, -3}, {1, 2})}}, {padded}),
      "paddings must be non-negative, but paddings[0] = [0, -3]");
  check_error(sess.run({{x, v}, {paddings, tensor::from_vector<int64_t>({0, 0})}}, {padded}),
              "paddings must have shape [1,2] for input shape [2], got shape [2]");
}
