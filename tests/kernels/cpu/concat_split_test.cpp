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

namespace {

tensor axis32(int32_t a) { return tensor::scalar<int32_t>(a); }

}  // namespace

TEST_CASE("ConcatV2 joins matrices along either axis") {
  auto a = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto b = tensor::from_vector<float>({5, 6, 7, 8, 9, 10}, {2, 3});
  auto cols = run_kernel("ConcatV2", {a, b, axis32(1)});
  REQUIRE(cols.ok());
  check_tensor<float>(cols->at(0), {2, 5}, {1, 2, 5, 6, 7, 3, 4, 8, 9, 10});
  auto neg = run_kernel("ConcatV2", {a, b, axis32(-1)});
  REQUIRE(neg.ok());
  check_tensor<float>(neg->at(0), {2, 5}, {1, 2, 5, 6, 7, 3, 4, 8, 9, 10});

  auto c = tensor::from_vector<float>({5, 6}, {1, 2});
  auto rows = run_kernel("ConcatV2", {a, c, axis32(0)});
  REQUIRE(rows.ok());
  check_tensor<float>(rows->at(0), {3, 2}, {1, 2, 3, 4, 5, 6});
  auto rows_neg = run_kernel("ConcatV2", {a, c, axis32(-2)});
  REQUIRE(rows_neg.ok());
  check_tensor<float>(rows_neg->at(0), {3, 2}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("ConcatV2 of three inputs with an int64 axis, every element size") {
  auto x = tensor::from_vector<int32_t>({1, 2}, {2, 1});
  auto y = tensor::from_vector<int32_t>({3, 4}, {2, 1});
  auto z = tensor::from_vector<int32_t>({5, 6, 7, 8}, {2, 2});
  auto out = run_kernel("ConcatV2", {x, y, z, tensor::scalar<int64_t>(1)});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {2, 4}, {1, 3, 5, 6, 2, 4, 7, 8});

  auto b = run_kernel("ConcatV2", {tensor::from_vector<bool>({true}),
                                   tensor::from_vector<bool>({false, true}), axis32(0)});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {3}, {true, false, true});
  auto u = run_kernel("ConcatV2", {tensor::from_vector<uint8_t>({9}),
                                   tensor::from_vector<uint8_t>({200, 7}), axis32(0)});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {3}, {9, 200, 7});
  auto d = run_kernel("ConcatV2", {tensor::from_vector<double>({0.5}, {1, 1}),
                                   tensor::from_vector<double>({-1.5}, {1, 1}), axis32(1)});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {1, 2}, {0.5, -1.5});
  auto l = run_kernel("ConcatV2", {tensor::from_vector<int64_t>({1LL << 40}),
                                   tensor::from_vector<int64_t>({-3}), axis32(0)});
  REQUIRE(l.ok());
  check_tensor<int64_t>(l->at(0), {2}, {1LL << 40, -3});
}

TEST_CASE("ConcatV2 with zero-size inputs") {
  auto empty = tensor(dtype::float32, {2, 0});
  auto b = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = run_kernel("ConcatV2", {empty, b, empty, axis32(1)});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 3}, {1, 2, 3, 4, 5, 6});
  auto none = run_kernel("ConcatV2",
                         {tensor(dtype::int32, {0, 2}), tensor(dtype::int32, {0, 3}), axis32(1)});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{0, 5});
}

TEST_CASE("ConcatV2 of large inputs matches the definition") {
  const int64_t rows = 1000;
  auto a = iota<float>({rows, 100});
  auto b = iota<float>({rows, 50}, 1e6f);
  auto out = run_kernel("ConcatV2", {a, b, axis32(1)});
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == tensor_shape{rows, 150});
  const float* y = out->at(0).data<float>();
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < 150; ++c)
      bad += y[r * 150 + c] != (c < 100 ? float(r * 100 + c) : 1e6f + float(r * 50 + c - 100));
  CHECK(bad == 0);
  auto stacked = run_kernel("ConcatV2", {a, a, axis32(0)});
  REQUIRE(stacked.ok());
  const float* s = stacked->at(0).data<float>();
  bad = 0;
  for (int64_t i = 0; i < 2 * rows * 100; ++i) bad += s[i] != float(i % (rows * 100));
  CHECK(bad == 0);
}

TEST_CASE("ConcatV2 rejects mismatched inputs naming both shapes") {
  auto a = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto b = tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 4});
  auto r = run_kernel("ConcatV2", {a, b, axis32(0)});
  check_error(r, "dimension 1 of values[1] (shape [3,4]) does not match values[0] (shape [2,3])");
  check_error(run_kernel("ConcatV2", {a, tensor(dtype::float32, {2, 3, 1}), axis32(0)}),
              "values[0] has shape [2,3] and values[1] has shape [2,3,1]");
  check_error(run_kernel("ConcatV2", {a, a, axis32(2)}), "concat axis 2 is out of range [-2, 2)");
  check_error(run_kernel("ConcatV2", {a, a, axis32(-3)}), "concat axis -3 is out of range");
  check_error(
      run_kernel("ConcatV2", {tensor::scalar<float>(1), tensor::scalar<float>(2), axis32(0)}),
      "cannot concatenate scalars");
}

TEST_CASE("ops::concat infers shapes and checks them at construction") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1}});
  auto b = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  auto c = ops::concat(root, {a, b}, 0);
  CHECK(root.shape_of(c) == partial_shape{-1, 3});
  auto d = ops::concat(root, {b, b, b}, -1);
  CHECK(root.shape_of(d) == partial_shape{-1, 9});
  auto axis = ops::placeholder(root, dtype::int32, {.shape = partial_shape{}});
  auto e = ops::concat(root, {a, b}, axis);
  CHECK(root.shape_of(e) == partial_shape{-1, -1});
  REQUIRE(root.ok());

  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3, 4}});
  ops::concat(root.with_op_name("mixed"), {a, x}, 0);
  check_error(root.get_status(), "node 'mixed' (ConcatV2)");
  check_error(root.get_status(), "values[0] has shape [2,?] and values[1] has shape [2,3,4]");

  auto root2 = scope::new_root();
  auto p = ops::placeholder(root2, dtype::float32, {.shape = partial_shape{2, 3}});
  auto q = ops::placeholder(root2, dtype::float32, {.shape = partial_shape{4, 5}});
  ops::concat(root2, {p, q}, 1);
  check_error(root2.get_status(),
              "dimension 0 of values[1] (shape [4,5]) does not match values[0] (shape [2,3])");
}

TEST_CASE("Split along dim 0 returns views of the input") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto out = run_kernel("Split", {axis32(0), x}, {{"num_split", 3}});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 3);
  check_tensor<float>(out->at(0), {1, 2}, {1, 2});
  check_tensor<float>(out->at(1), {1, 2}, {3, 4});
  check_tensor<float>(out->at(2), {1, 2}, {5, 6});
  for (const tensor& t : *out) CHECK(t.shares_buffer_with(x));
  // Only size-1 dims before the split dim: still contiguous pieces.
  auto y = tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {1, 6});
  auto row = run_kernel("Split", {axis32(1), y}, {{"num_split", 2}});
  REQUIRE(row.ok());
  check_tensor<int32_t>(row->at(0), {1, 3}, {1, 2, 3});
  check_tensor<int32_t>(row->at(1), {1, 3}, {4, 5, 6});
  CHECK(row->at(1).shares_buffer_with(y));
}

TEST_CASE("Split along an inner dim copies rows, negative dims count from the end") {
  auto x = tensor::from_vector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  auto out = run_kernel("Split", {axis32(-1), x}, {{"num_split", 2}});
  REQUIRE(out.ok());
  check_tensor<int64_t>(out->at(0), {2, 2}, {1, 2, 5, 6});
  check_tensor<int64_t>(out->at(1), {2, 2}, {3, 4, 7, 8});
  CHECK_FALSE(out->at(0).shares_buffer_with(x));
  // x = arange(12).reshape(2, 3, 2) split in 3 along dim 1.
  auto z = run_kernel("Split", {axis32(1), iota<uint8_t>({2, 3, 2})}, {{"num_split", 3}});
  REQUIRE(z.ok());
  check_tensor<uint8_t>(z->at(0), {2, 1, 2}, {0, 1, 6, 7});
  check_tensor<uint8_t>(z->at(1), {2, 1, 2}, {2, 3, 8, 9});
  check_tensor<uint8_t>(z->at(2), {2, 1, 2}, {4, 5, 10, 11});
  auto b = run_kernel("Split",
                      {axis32(1), tensor::from_vector<bool>({true, false, false, true}, {2, 2})},
                      {{"num_split", 2}});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {2, 1}, {true, false});
  check_tensor<bool>(b->at(1), {2, 1}, {false, true});
}

TEST_CASE("Split into one piece, and of zero-size tensors") {
  auto x = tensor::from_vector<double>({1, 2}, {2});
  auto one = run_kernel("Split", {axis32(0), x}, {{"num_split", 1}});
  REQUIRE(one.ok());
  CHECK(one->at(0).shares_buffer_with(x));
  auto empty = run_kernel("Split", {axis32(1), tensor(dtype::float32, {0, 4})}, {{"num_split", 2}});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 2});
  CHECK(empty->at(1).shape() == tensor_shape{0, 2});
}

TEST_CASE("Split of a large tensor along an inner dim") {
  const int64_t rows = 2000;
  auto out = run_kernel("Split", {axis32(1), iota<int32_t>({rows, 64})}, {{"num_split", 4}});
  REQUIRE(out.ok());
  int bad = 0;
  for (int j = 0; j < 4; ++j) {
    const int32_t* p = out->at(j).data<int32_t>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < 16; ++c) bad += p[r * 16 + c] != r * 64 + j * 16 + c;
  }
  CHECK(bad == 0);
}

TEST_CASE("Split rejects an uneven split and a bad dim") {
  auto x = tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5});
  check_error(run_kernel("Split", {axis32(1), x}, {{"num_split", 2}}),
              "num_split 2 does not evenly divide dimension 1 of size 5 (value shape [2,5])");
  check_error(run_kernel("Split", {axis32(2), x}, {{"num_split", 2}}),
              "split_dim 2 is out of range [-2, 2)");
  check_error(run_kernel("Split", {axis32(0), tensor::scalar<float>(1)}, {{"num_split", 1}}),
              "out of range");
}

TEST_CASE("ops::split returns num_split outputs with inferred shapes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{6, -1}});
  auto parts = ops::split(root, 0, x, 3);
  REQUIRE(parts.size() == 3);
  for (const auto& p : parts) CHECK(root.shape_of(p) == partial_shape{2, -1});
  CHECK(parts[2].index == 2);
  auto unknown_dim = ops::split(root, 1, x, 5);
  CHECK(root.shape_of(unknown_dim[4]) == partial_shape{6, -1});
  REQUIRE(root.ok());
  auto bad = ops::split(root.with_op_name("uneven"), 0, x, 4);
  CHECK(bad.size() == 4);
  CHECK_FALSE(bad[0].valid());
  check_error(root.get_status(), "node 'uneven' (Split)");
  check_error(root.get_status(), "num_split 4 does not evenly divide dimension 0 of size 6");
}

TEST_CASE("ConcatV2 and Split check fed shapes at run time") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root, dtype::float32);
  auto b = ops::placeholder(root, dtype::float32);
  auto axis = ops::placeholder(root, dtype::int32);
  auto joined = ops::concat(root, {a, b}, axis);
  auto parts = ops::split(root, axis, a, 2);
  REQUIRE(root.ok());
  session sess(root);
  auto m23 = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto m34 = tensor::filled<float>({3, 4}, 1.0f);
  auto ok = sess.run({{a, m23}, {b, m23}, {axis, axis32(0)}}, {joined});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {4, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  check_error(sess.run({{a, m23}, {b, m34}, {axis, axis32(0)}}, {joined}),
              "dimension 1 of values[1] (shape [3,4]) does not match values[0] (shape [2,3])");
  check_error(
      sess.run({{a, m23}, {b, tensor::filled<float>({2}, 1.0f)}, {axis, axis32(0)}}, {joined}),
      "values[0] has shape [2,3] and values[1] has shape [2]");
  check_error(sess.run({{a, m23}, {b, m23}, {axis, axis32(5)}}, {joined}),
              "concat axis 5 is out of range [-2, 2)");
  check_error(
      sess.run({{a, tensor::scalar<float>(1)}, {b, tensor::scalar<float>(2)}, {axis, axis32(0)}},
               {joined}),
      "cannot concatenate scalars");
  check_error(sess.run({{a, m23}, {b, m23}, {axis, tensor::from_vector<int32_t>({0})}}, {joined}),
              "axis must be a scalar, got shape [1]");

  auto halves = sess.run({{a, m23}, {axis, axis32(0)}}, {parts[0], parts[1]});
  REQUIRE(halves.ok());
  check_tensor<float>(halves->at(1), {1, 3}, {4, 5, 6});
  check_error(sess.run({{a, m23}, {axis, axis32(1)}}, {parts[0]}),
              "num_split 2 does not evenly divide dimension 1 of size 3 (value shape [2,3])");
  check_error(sess.run({{a, m23}, {axis, axis32(-3)}}, {parts[0]}),
              "split_dim -3 is out of range [-2, 2)");
  check_error(sess.run({{a, m23}, {axis, tensor::from_vector<int32_t>({0})}}, {parts[0]}),
              "split_dim must be a scalar, got shape [1]");
}
