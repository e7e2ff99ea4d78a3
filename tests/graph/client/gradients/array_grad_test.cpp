// Gradients of the array ops (reshaping, transposing, joining, slicing, gathering, tiling,
// padding, packing, filling), checked against central differences. Each output is multiplied
// by a fixed ramp before the check, so the gradient flowing in differs per element and a
// gradient routed to the wrong place cannot pass.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::ramp_weighted;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;
using caflow::testing::iota;

namespace {

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

}  // namespace

TEST_CASE("Identity and PlaceholderWithDefault pass the gradient through") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  check_gradient(root, x, ramp_weighted(root, ops::identity(root, x)), x23());
  auto root2 = scope::new_root();
  auto d = input(root2, "d", {2, 3});
  auto p = ops::placeholder_with_default(root2, d, partial_shape{2, 3});
  check_gradient(root2, d, ramp_weighted(root2, p), x23());
}

TEST_CASE("Reshape, ExpandDims and Squeeze give the gradient the input's shape back") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    const partial_shape shape = known ? partial_shape{2, 3, 4} : partial_shape::unknown();
    auto root = scope::new_root();
    auto x = input(root, "x", shape);
    check_gradient(root, x, ramp_weighted(root, ops::reshape(root, x, {4, -1})), x234());
    auto r2 = scope::new_root();
    auto x2 = input(r2, "x", shape);
    check_gradient(r2, x2, ramp_weighted(r2, ops::expand_dims(r2, x2, -2)), x234());
    auto r3 = scope::new_root();
    auto x3 = input(r3, "x", known ? partial_shape{2, 1, 3} : partial_shape::unknown());
    check_gradient(r3, x3, ramp_weighted(r3, ops::squeeze(r3, x3)), iota<double>({2, 1, 3}, 1.0));
  }
}

TEST_CASE("Transpose by a constant and by a fed permutation") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  check_gradient(root, x, ramp_weighted(root, ops::transpose(root, x, {2, 0, 1})), x234());
  auto r2 = scope::new_root();
  auto x2 = input(r2, "x", partial_shape::unknown());
  auto perm = ops::placeholder(r2.with_op_name("perm"), dtype::int64);
  check_gradient(r2, x2, ramp_weighted(r2, ops::transpose(r2, x2, perm)), x234(),
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
    check_gradients(root, {a, b, c}, ramp_weighted(root, y),
                    {x23(), iota<double>({2, 1}, 7.0), iota<double>({2, 2}, -2.0)});
  }
  // Axis fed at run time.
  auto root = scope::new_root();
  auto a = input(root, "a", {2, 3});
  auto b = input(root, "b", {1, 3});
  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int32);
  auto y = ops::concat(root, {a, b}, axis);
  check_gradients(root, {a, b}, ramp_weighted(root, y), {x23(), iota<double>({1, 3}, 9.0)},
                  {.extra_feeds = {{axis, tensor::scalar<int32_t>(0)}}});
}

TEST_CASE("Split concatenates the pieces' gradients, zeros for unused pieces") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 6});
  auto parts = ops::split(root, 1, x, 3);
  // Piece 1 is unused: its part of the gradient is zero.
  auto y = ops::sub(root, ramp_weighted(root, parts[0]), ops::square(root, parts[2]));
  check_gradient(root, x, y, iota<double>({2, 6}, -4.0));
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::sum(root, parts[1], {0, 1})}, {x}, &g).ok());
  check_tensor(run(root, {{x, iota<double>({2, 6})}}, g)[0], tensor_shape{2, 6},
               std::vector<double>{0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0});
  auto r1 = scope::new_root();
  auto x1 = input(r1, "x", {2, 3});
  check_gradient(r1, x1, ramp_weighted(r1, ops::split(r1, 0, x1, 1)[0]), x23());
}

TEST_CASE("Slice pads the gradient back") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3, 4} : partial_shape::unknown());
    check_gradient(root, x, ramp_weighted(root, ops::slice(root, x, {1, 0, 1}, {1, -1, 2})), x234());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  auto begin = ops::placeholder(root.with_op_name("begin"), dtype::int32);
  check_gradient(
      root, x,
      ramp_weighted(root,
               ops::slice(root, x, begin, ops::constant(root, std::vector<int32_t>{2, 2, 2}, {3}))),
      x234(), {.extra_feeds = {{begin, tensor::from_vector<int32_t>({0, 1, 2})}}});
}

TEST_CASE("StridedSlice with unit strides") {
  auto check = [](const partial_shape& shape, std::initializer_list<int64_t> b,
                  std::initializer_list<int64_t> e, std::initializer_list<int64_t> st,
                  const ops::strided_slice_attrs& attrs) {
    auto root = scope::new_root();
    auto x = input(root, "x", shape);
    check_gradient(root, x, ramp_weighted(root, ops::strided_slice(root, x, b, e, st, attrs)), x234());
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

TEST_CASE("StridedSlice with strides, negative strides and masks") {
  auto check = [](const partial_shape& shape, std::initializer_list<int64_t> b,
                  std::initializer_list<int64_t> e, std::initializer_list<int64_t> st,
                  const ops::strided_slice_attrs& attrs) {
    auto root = scope::new_root();
    auto x = input(root, "x", shape);
    check_gradient(root, x, ramp_weighted(root, ops::strided_slice(root, x, b, e, st, attrs)), x234());
  };
  const partial_shape known{2, 3, 4}, batch{-1, 3, -1}, unknown = partial_shape::unknown();
  for (const partial_shape& shape : {known, batch, unknown}) {
    CAPTURE(shape.to_string());
    // x[:, :, ::2]
    check(shape, {0, 0, 0}, {2, 3, 4}, {1, 1, 2}, {});
    // x[::-1, 2:0:-1, ::3]
    check(shape, {0, 2, 0}, {0, 0, 0}, {-1, -1, 3}, {.begin_mask = 5, .end_mask = 5});
    // x[..., ::-2]
    check(shape, {0, 0}, {0, 0}, {1, -2}, {.begin_mask = 2, .end_mask = 2, .ellipsis_mask = 1});
    // x[1, tf.newaxis, ::2, -1]: counting from the end of a dim unknown at construction
    check(shape, {1, 0, 0, -1}, {2, 0, 0, 0}, {1, 1, 2, 1},
          {.begin_mask = 4, .end_mask = 4, .new_axis_mask = 2, .shrink_axis_mask = 9});
    // An empty slice: x[:, 2:1]
    check(shape, {0, 2}, {0, 1}, {1, 1}, {.begin_mask = 1, .end_mask = 1});
  }
}

TEST_CASE("StridedSlice with bounds and strides fed at run time") {
  auto root = scope::new_root();
  auto x = input(root, "x", partial_shape::unknown());
  auto b = ops::placeholder(root.with_op_name("b"), dtype::int64);
  auto e = ops::placeholder(root.with_op_name("e"), dtype::int64);
  auto st = ops::placeholder(root.with_op_name("st"), dtype::int64);
  check_gradient(root, x, ramp_weighted(root, ops::strided_slice(root, x, b, e, st)), x234(),
                 {.extra_feeds = {{b, tensor::from_vector<int64_t>({1, -1, 3})},
                                  {e, tensor::from_vector<int64_t>({-3, 0, 0})},
                                  {st, tensor::from_vector<int64_t>({-1, -2, -2})}}});
}

TEST_CASE("StridedSlice's gradient is StridedSliceGrad, and StridedSliceGrad's is a slice") {
  // Hand-checked: x[::-1, ::2] of a [2, 3] input reads (1, 0), (1, 2), (0, 0), (0, 2).
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto y = ops::strided_slice(root, x, {0, 0}, {0, 0}, {-1, 2}, {.begin_mask = 3, .end_mask = 3});
  auto dy = ops::constant(root, std::vector<double>{1, 2, 3, 4}, {2, 2});
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, {dy}, &g).ok());
  check_tensor(run(root, {{x, x23()}}, g)[0], tensor_shape{2, 3},
               std::vector<double>{3, 0, 4, 1, 0, 2});
  // d/d dy of StridedSliceGrad, checked numerically through the whole op.
  auto r2 = scope::new_root();
  auto d = input(r2, "dy", {2, 2});
  auto shape = ops::constant(r2, std::vector<int32_t>{3, 4}, {2});
  auto idx = [&](std::vector<int32_t> v) {
    return ops::constant(r2, v, {static_cast<int64_t>(v.size())});
  };
  // rows 2 and 0 (end masked), columns 0 and 3
  auto back = ops::strided_slice_grad(r2, shape, idx({2, 0}), idx({0, 4}), idx({-2, 3}), d,
                                      {.end_mask = 1});
  check_gradient(r2, d, ramp_weighted(r2, back), iota<double>({2, 2}, 0.5));
}

TEST_CASE("GatherV2 along axis 0 sums the rows of repeated indices") {
  auto root = scope::new_root();
  auto params = input(root, "params", {4, 3});
  auto indices = ops::constant(root, std::vector<int32_t>{2, 0, 2, 3, 2, 1}, {2, 3});
  check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, 0)),
                 iota<double>({4, 3}, -1.0));
  // Hand-checked: ones gathered, row 2 taken three times.
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::gather(root, params, indices)}, {params}, &g).ok());
  check_tensor(run(root, {{params, iota<double>({4, 3})}}, g)[0], tensor_shape{4, 3},
               std::vector<double>{1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1});

  auto r2 = scope::new_root();
  auto p2 = input(r2, "params", partial_shape::unknown());
  auto i2 = ops::placeholder(r2.with_op_name("indices"), dtype::int64);
  check_gradient(r2, p2, ramp_weighted(r2, ops::gather(r2, p2, i2)), x234(),
                 {.extra_feeds = {{i2, tensor::from_vector<int64_t>({1, 1, 0})}}});
}

TEST_CASE("GatherV2 along inner axes") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto params = input(root, "params", known ? partial_shape{2, 3, 4} : partial_shape::unknown());
    auto indices = ops::constant(root, std::vector<int64_t>{2, 2, 0, 1}, {2, 2});
    check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, 1)), x234());
    check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, 2)), x234());
  }
  auto root = scope::new_root();
  auto params = input(root, "params", {2, 3, 4});
  auto indices = ops::constant(root, std::vector<int32_t>{3, 0, 3}, {3});
  check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, -1)), x234());
  // Hand-checked: ones gathered along the last axis, column 3 taken twice.
  std::vector<output> g;
  REQUIRE(
      add_symbolic_gradients(root, {ops::gather(root, params, indices, -1)}, {params}, &g).ok());
  const std::vector<double> row = {1, 0, 0, 2};
  std::vector<double> expected;
  for (int i = 0; i < 6; ++i) expected.insert(expected.end(), row.begin(), row.end());
  check_tensor(run(root, {{params, x234()}}, g)[0], tensor_shape{2, 3, 4}, expected);

  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int32);
  check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, axis)), x234(),
                 {.extra_feeds = {{axis, tensor::scalar<int32_t>(-1)}}});
}

TEST_CASE("GatherV2 with an axis fed at run time and params of unknown shape") {
  auto root = scope::new_root();
  auto params = input(root, "params", partial_shape::unknown());
  auto indices = ops::placeholder(root.with_op_name("indices"), dtype::int64);
  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int64);
  for (int64_t a : {0, 1, 2, -1})
    check_gradient(root, params, ramp_weighted(root, ops::gather(root, params, indices, axis)), x234(),
                   {.extra_feeds = {{axis, tensor::scalar<int64_t>(a)},
                                    {indices, tensor::from_vector<int64_t>({1, 0, 1}, {3, 1})}}});
}

TEST_CASE("GatherV2 with batch_dims") {
  // params [2, 3, 4]; indices [2, 3] (batch dim 0): along axis 1 and along axis 2.
  const tensor idx = tensor::from_vector<int32_t>({2, 2, 0, 1, 1, 1}, {2, 3});
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto params = input(root, "params", known ? partial_shape{2, 3, 4} : partial_shape::unknown());
    auto indices =
        ops::placeholder(root.with_op_name("indices"), dtype::int32,
                         {.shape = known ? partial_shape{2, 3} : partial_shape::unknown()});
    const testing::gradient_check_options feed{.extra_feeds = {{indices, idx}}};
    check_gradient(root, params,
                   ramp_weighted(root, ops::gather(root, params, indices, 1, {.batch_dims = 1})), x234(),
                   feed);
    check_gradient(root, params,
                   ramp_weighted(root, ops::gather(root, params, indices, 2, {.batch_dims = 1})), x234(),
                   feed);
    check_gradient(root, params,
                   ramp_weighted(root, ops::gather(root, params, indices, -1, {.batch_dims = -1})),
                   x234(), feed);
    // Two batch dims: indices [2, 3, 2] into the last axis.
    auto i3 =
        ops::constant(root, std::vector<int64_t>{3, 0, 1, 1, 2, 3, 0, 0, 3, 3, 2, 1}, {2, 3, 2});
    check_gradient(root, params,
                   ramp_weighted(root, ops::gather(root, params, i3, 2, {.batch_dims = 2})), x234());
  }
  // Hand-checked: params [2, 3], indices [[2, 2], [0, 1]], ones flowing back: batch row 0
  // takes column 2 twice, batch row 1 columns 0 and 1 once.
  auto root = scope::new_root();
  auto params = input(root, "params", {2, 3});
  auto indices = ops::constant(root, std::vector<int32_t>{2, 2, 0, 1}, {2, 2});
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::gather(root, params, indices, 1, {.batch_dims = 1})},
                                 {params}, &g)
              .ok());
  check_tensor(run(root, {{params, x23()}}, g)[0], tensor_shape{2, 3},
               std::vector<double>{0, 0, 2, 1, 1, 0});
}

TEST_CASE("UnsortedSegmentSum's gradient gathers, with zeros for dropped rows") {
  auto root = scope::new_root();
  auto data = input(root, "data", {4, 3});
  auto ids = ops::constant(root, std::vector<int32_t>{1, -1, 1, 0}, {4});
  auto y = ops::unsorted_segment_sum(root, data, ids, ops::constant(root, int32_t{3}));
  check_gradient(root, data, ramp_weighted(root, y), iota<double>({4, 3}, -2.0));
  auto ids2 = ops::placeholder(root.with_op_name("ids2"), dtype::int64);
  auto y2 = ops::unsorted_segment_sum(root, data, ids2, ops::constant(root, int64_t{2}));
  check_gradient(root, data, ramp_weighted(root, y2), iota<double>({4, 3}, -2.0),
                 {.extra_feeds = {{ids2, tensor::from_vector<int64_t>(
                                             {-1, 1, 1, 0, 0, 1, 1, -1, 0, 0, 1, 1}, {4, 3})}}});
}

TEST_CASE("Tile sums the copies") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3} : partial_shape::unknown());
    check_gradient(root, x, ramp_weighted(root, ops::tile(root, x, {3, 2})), x23());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto m = ops::placeholder(root.with_op_name("m"), dtype::int64);
  check_gradient(root, x, ramp_weighted(root, ops::tile(root, x, m)), x23(),
                 {.extra_feeds = {{m, tensor::from_vector<int64_t>({1, 3})}}});
}

TEST_CASE("Pad takes the middle of the gradient") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3} : partial_shape::unknown());
    check_gradient(root, x, ramp_weighted(root, ops::pad(root, x, {{1, 2}, {0, 1}})), x23());
  }
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto p = ops::placeholder(root.with_op_name("p"), dtype::int32);
  check_gradient(root, x, ramp_weighted(root, ops::pad(root, x, p)), x23(),
                 {.extra_feeds = {{p, tensor::from_vector<int32_t>({2, 0, 1, 1}, {2, 2})}}});
}

TEST_CASE("Pack and Unpack") {
  auto root = scope::new_root();
  auto a = input(root, "a", {2, 3});
  auto b = input(root, "b", {2, 3});
  check_gradients(root, {a, b}, ramp_weighted(root, ops::pack(root, {a, b}, {.axis = 1})),
                  {x23(), iota<double>({2, 3}, -5.0)});
  auto r2 = scope::new_root();
  auto x = input(r2, "x", {2, 3});
  auto rows = ops::unpack(r2, x, 3, {.axis = -1});
  auto y = ops::add(r2, ops::square(r2, rows[0]), ramp_weighted(r2, rows[2]));
  check_gradient(r2, x, y, x23());
}

TEST_CASE("Fill sums the gradient into its value") {
  auto root = scope::new_root();
  auto v = ops::placeholder(root.with_op_name("v"), dtype::float64,
                            {.shape = partial_shape(tensor_shape{})});
  auto y = ops::fill(root, ops::constant(root, std::vector<int32_t>{2, 3}, {2}), v);
  check_gradient(root, v, ramp_weighted(root, y), tensor::scalar<double>(1.5));
  auto dims = ops::placeholder(root.with_op_name("dims"), dtype::int64);
  auto y2 = ops::fill(root, dims, v);
  check_gradient(root, v, ramp_weighted(root, y2), tensor::scalar<double>(-0.5),
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
