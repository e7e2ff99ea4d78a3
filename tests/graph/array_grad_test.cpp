// Gradients of the array ops (reshaping, transposing, joining, slicing, gathering, tiling,
// padding, packing, filling), checked against central differences. Each output is multiplied
// by a fixed ramp before the check, so the gradient flowing in differs per element and a
// gradient routed to the wrong place cannot pass.
#include <doctest/doctest.h>

#include "actors/session.hpp"
#include "graph/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;
using caflow::testing::iota;

namespace {

// y * (1, 2, 3, ...) laid out like y, whatever y's shape.
output weighted(const scope& s, const output& y) {
  auto n = ops::size(s, y);
  auto ramp = ops::range(s, ops::constant(s, int32_t{1}), ops::add(s, n, ops::constant(s, 1)),
                         ops::constant(s, int32_t{1}));
  return ops::mul(s, y, ops::reshape(s, ops::cast(s, ramp, y.type), ops::shape(s, y)));
}

output input(const scope& s, const char* name, const partial_shape& shape) {
  return ops::placeholder(s.with_op_name(name), dtype::float64, {.shape = shape});
}

tensor x23() { return iota<double>({2, 3}, 0.5); }
tensor x234() { return iota<double>({2, 3, 4}, -3.0); }

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

status gradient_status(const scope& root, const output& y, const output& x) {
  std::vector<output> g;
  return add_symbolic_gradients(root, {y}, {x}, &g);
}

}  // namespace

TEST_CASE("Identity and PlaceholderWithDefault pass the gradient through") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  check_gradient(root, x, weighted(root, ops::identity(root, x)), x23());
  auto root2 = scope::new_root();
  auto d = input(root2, "d", {2, 3});
  auto p = ops::placeholder_with_default(root2, d, partial_shape{2, 3});
  check_gradient(root2, d, weighted(root2, p), x23());
}

TEST_CASE("Reshape, ExpandDims and Squeeze give the gradient the input's shape back") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    const partial_shape shape = known ? partial_shape{2, 3, 4} : partial_shape::unknown();
    auto root = scope::new_root();
    auto x = input(root, "x", shape);
    check_gradient(root, x, weighted(root, ops::reshape(root, x, {4, -1})), x234());
    auto r2 = scope::new_root();
    auto x2 = input(r2, "x", shape);
    check_gradient(r2, x2, weighted(r2, ops::expand_dims(r2, x2, -2)), x234());
    auto r3 = scope::new_root();
    auto x3 = input(r3, "x", known ? partial_shape{2, 1, 3} : partial_shape::unknown());
    check_gradient(r3, x3, weighted(r3, ops::squeeze(r3, x3)), iota<double>({2, 1, 3}, 1.0));
  }
}

TEST_CASE("Transpose by a constant and by a fed permutation") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  check_gradient(root, x, weighted(root, ops::transpose(root, x, {2, 0, 1})), x234());
  auto r2 = scope::new_root();
  auto x2 = input(r2, "x", partial_shape::unknown());
  auto perm = ops::placeholder(r2.with_op_name("perm"), dtype::int64);
  check_gradient(r2, x2, weighted(r2, ops::transpose(r2, x2, perm)), x234(),
                 {.extra_feeds = {{perm, tensor::from_vector<int64_t>({1, 2, 0})}}});
}

TEST_CASE("ConcatV2 hands each input its slice") {
  // Shapes known, known but for the batch dim, or unknown.
  for (int known : {2, 1, 0}) {
    CAPTURE(known);
    auto declared = [&](int64_t cols) {
      return known == 2   ? partial_shape{2, cols}
             : known == 1 ? partial_shape{-1, cols}
                          : partial_shape::unknown();
    };
    auto root = scope::new_root();
    auto a = input(root, "a", declared(3));
    auto b = input(root, "b", declared(1));
    auto c = input(root, "c", declared(2));
    auto y = ops::concat(root, {a, b, c}, -1);
    check_gradients(root, {a, b, c}, weighted(root, y),
                    {x23(), iota<double>({2, 1}, 7.0), iota<double>({2, 2}, -2.0)});
  }
  // Axis fed at run time.
  auto root = scope::new_root();
  auto a = input(root, "a", {2, 3});
  auto b = input(root, "b", {1, 3});
  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int32);
  auto y = ops::concat(root, {a, b}, axis);
  check_gradients(root, {a, b}, weighted(root, y), {x23(), iota<double>({1, 3}, 9.0)},
                  {.extra_feeds = {{axis, tensor::scalar<int32_t>(0)}}});
}

TEST_CASE("Split concatenates the pieces' gradients, zeros for unused pieces") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 6});
  auto parts = ops::split(root, 1, x, 3);
  // Piece 1 is unused: its part of the gradient is zero.
  auto y = ops::sub(root, weighted(root, parts[0]), ops::square(root, parts[2]));
  check_gradient(root, x, y, iota<double>({2, 6}, -4.0));
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::sum(root, parts[1], {0, 1})}, {x}, &g).ok());
  check_tensor(run(root, {{x, iota<double>({2, 6})}}, g)[0], tensor_shape{2, 6},
               std::vector<double>{0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0});
  auto r1 = scope::new_root();
  auto x1 = input(r1, "x", {2, 3});
  check_gradient(r1, x1, weighted(r1, ops::split(r1, 0, x1, 1)[0]), x23());
}

TEST_CASE("Slice pads the gradient back") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3, 4} : partial_shape::unknown());
    check_gradient(root, x, weighted(root, ops::slice(root, x, {1, 0, 1}, {1, -1, 2})), x234());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  auto begin = ops::placeholder(root.with_op_name("begin"), dtype::int32);
  check_gradient(
      root, x,
      weighted(root,
               ops::slice(root, x, begin, ops::constant(root, std::vector<int32_t>{2, 2, 2}, {3}))),
      x234(), {.extra_feeds = {{begin, tensor::from_vector<int32_t>({0, 1, 2})}}});
}

TEST_CASE("StridedSlice with unit strides") {
  auto check = [](const partial_shape& shape, std::initializer_list<int64_t> b,
                  std::initializer_list<int64_t> e, std::initializer_list<int64_t> st,
                  const ops::strided_slice_attrs& attrs) {
    auto root = scope::new_root();
    auto x = input(root, "x", shape);
    check_gradient(root, x, weighted(root, ops::strided_slice(root, x, b, e, st, attrs)), x234());
  };
  const partial_shape known{2, 3, 4}, batch{-1, 3, 4}, ranked = partial_shape::unknown_of_rank(3);
  for (const partial_shape& shape : {known, batch, ranked}) {
    CAPTURE(shape.to_string());
    // x[:, 1]
    check(shape, {0, 1}, {0, 2}, {1, 1}, {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
    // x[1:2, 0:2, 1:3]
    check(shape, {1, 0, 1}, {2, 2, 3}, {1, 1, 1}, {});
    // x[..., 2]
    check(shape, {0, 2}, {0, 3}, {1, 1}, {.ellipsis_mask = 1, .shrink_axis_mask = 2});
    // x[:, tf.newaxis, 1:]
    check(shape, {0, 0, 1}, {0, 0, 0}, {1, 1, 1},
          {.begin_mask = 1, .end_mask = 5, .new_axis_mask = 2});
  }
  // Counting from the end needs the dim's size: fine when known.
  check(known, {0, -1}, {0, 0}, {1, 1}, {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  check(known, {0, 0, -3}, {0, 0, -1}, {1, 1, 1}, {.begin_mask = 3, .end_mask = 3});
  // A stride that reads a single element is fine too.
  check(known, {1}, {2}, {5}, {});
}

TEST_CASE("StridedSlice slices whose gradient is not implemented say why") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  auto strided = ops::strided_slice(root, x, {0}, {2}, {1}, {.end_mask = 0});
  CHECK(gradient_status(root, weighted(root, strided), x).ok());
  auto every_other = ops::strided_slice(root, x, {0, 0, 0}, {2, 3, 4}, {1, 1, 2});
  auto st = gradient_status(root, every_other, x);
  CHECK(st.code() == error_code::unimplemented);
  CHECK_MESSAGE(st.message().find("dimension 2 is read with stride 2") != std::string::npos,
                st.message());
  auto y = input(root, "y", {-1, 3});
  auto last = ops::strided_slice(root, y, {-1}, {0}, {1}, {.shrink_axis_mask = 1});
  auto st2 = gradient_status(root, last, y);
  CHECK_MESSAGE(st2.message().find("needs the size of dimension 0") != std::string::npos,
                st2.message());
}

TEST_CASE("GatherV2 along axis 0 sums the rows of repeated indices") {
  auto root = scope::new_root();
  auto params = input(root, "params", {4, 3});
  auto indices = ops::constant(root, std::vector<int32_t>{2, 0, 2, 3, 2, 1}, {2, 3});
  check_gradient(root, params, weighted(root, ops::gather(root, params, indices, 0)),
                 iota<double>({4, 3}, -1.0));
  // Hand-checked: ones gathered, row 2 taken three times.
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::gather(root, params, indices)}, {params}, &g).ok());
  check_tensor(run(root, {{params, iota<double>({4, 3})}}, g)[0], tensor_shape{4, 3},
               std::vector<double>{1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1});

  auto r2 = scope::new_root();
  auto p2 = input(r2, "params", partial_shape::unknown());
  auto i2 = ops::placeholder(r2.with_op_name("indices"), dtype::int64);
  check_gradient(r2, p2, weighted(r2, ops::gather(r2, p2, i2)), x234(),
                 {.extra_feeds = {{i2, tensor::from_vector<int64_t>({1, 1, 0})}}});
}

TEST_CASE("GatherV2 along inner axes") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto params = input(root, "params", known ? partial_shape{2, 3, 4} : partial_shape::unknown());
    auto indices = ops::constant(root, std::vector<int64_t>{2, 2, 0, 1}, {2, 2});
    check_gradient(root, params, weighted(root, ops::gather(root, params, indices, 1)), x234());
    check_gradient(root, params, weighted(root, ops::gather(root, params, indices, 2)), x234());
  }
  auto root = scope::new_root();
  auto params = input(root, "params", {2, 3, 4});
  auto indices = ops::constant(root, std::vector<int32_t>{3, 0, 3}, {3});
  check_gradient(root, params, weighted(root, ops::gather(root, params, indices, -1)), x234());
  // Hand-checked: ones gathered along the last axis, column 3 taken twice.
  std::vector<output> g;
  REQUIRE(
      add_symbolic_gradients(root, {ops::gather(root, params, indices, -1)}, {params}, &g).ok());
  const std::vector<double> row = {1, 0, 0, 2};
  std::vector<double> expected;
  for (int i = 0; i < 6; ++i) expected.insert(expected.end(), row.begin(), row.end());
  check_tensor(run(root, {{params, x234()}}, g)[0], tensor_shape{2, 3, 4}, expected);

  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int32);
  auto st = gradient_status(root, ops::gather(root, params, indices, axis), params);
  CHECK(st.code() == error_code::unimplemented);
  CHECK_MESSAGE(st.message().find("an axis computed at run time") != std::string::npos,
                st.message());
}

TEST_CASE("Tile sums the copies") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3} : partial_shape::unknown());
    check_gradient(root, x, weighted(root, ops::tile(root, x, {3, 2})), x23());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto m = ops::placeholder(root.with_op_name("m"), dtype::int64);
  check_gradient(root, x, weighted(root, ops::tile(root, x, m)), x23(),
                 {.extra_feeds = {{m, tensor::from_vector<int64_t>({1, 3})}}});
}

TEST_CASE("Pad takes the middle of the gradient") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3} : partial_shape::unknown());
    check_gradient(root, x, weighted(root, ops::pad(root, x, {{1, 2}, {0, 1}})), x23());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto p = ops::placeholder(root.with_op_name("p"), dtype::int32);
  check_gradient(root, x, weighted(root, ops::pad(root, x, p)), x23(),
                 {.extra_feeds = {{p, tensor::from_vector<int32_t>({2, 0, 1, 1}, {2, 2})}}});
}

TEST_CASE("Pack and Unpack") {
  auto root = scope::new_root();
  auto a = input(root, "a", {2, 3});
  auto b = input(root, "b", {2, 3});
  check_gradients(root, {a, b}, weighted(root, ops::pack(root, {a, b}, {.axis = 1})),
                  {x23(), iota<double>({2, 3}, -5.0)});
  auto r2 = scope::new_root();
  auto x = input(r2, "x", {2, 3});
  auto rows = ops::unpack(r2, x, 3, {.axis = -1});
  auto y = ops::add(r2, ops::square(r2, rows[0]), weighted(r2, rows[2]));
  check_gradient(r2, x, y, x23());
}

TEST_CASE("Fill sums the gradient into its value") {
  auto root = scope::new_root();
  auto v = ops::placeholder(root.with_op_name("v"), dtype::float64,
                            {.shape = partial_shape(tensor_shape{})});
  auto y = ops::fill(root, ops::constant(root, std::vector<int32_t>{2, 3}, {2}), v);
  check_gradient(root, v, weighted(root, y), tensor::scalar<double>(1.5));
  auto dims = ops::placeholder(root.with_op_name("dims"), dtype::int64);
  auto y2 = ops::fill(root, dims, v);
  check_gradient(root, v, weighted(root, y2), tensor::scalar<double>(-0.5),
                 {.extra_feeds = {{dims, tensor::from_vector<int64_t>({2, 2, 2})}}});
}

TEST_CASE("ZerosLike, OnesLike and shape queries pass no gradient") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto size = ops::cast(root, ops::size(root, x), dtype::float64);
  auto y = ops::add(root, ops::add(root, ops::mul(root, x, size), ops::zeros_like(root, x)),
                    ops::ones_like(root, x));
  // dy/dx = size = 6 (the size does not vary with x's values).
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &g).ok());
  check_tensor(run(root, {{x, x23()}}, g)[0], tensor_shape{2, 3},
               std::vector<double>{6, 6, 6, 6, 6, 6});
}
