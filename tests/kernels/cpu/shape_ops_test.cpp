// Reshape, Shape, Size, Rank, ExpandDims, Squeeze: kernels and shape functions.
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor iota_f(const tensor_shape& shape) {
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return tensor::from_vector<float>(v, shape);
}

}  // namespace

TEST_CASE("Reshape infers -1 and shares the input's bytes") {
  const tensor x = iota_f({2, 3});
  auto out = run_kernel("Reshape", {x, tensor::from_vector<int32_t>({3, -1})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(out->at(0).shares_buffer_with(x));

  auto lead = run_kernel("Reshape", {x, tensor::from_vector<int64_t>({-1, 1, 2})});
  REQUIRE(lead.ok());
  check_tensor<float>(lead->at(0), {3, 1, 2}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("Reshape moves every dtype, scalars and empty tensors") {
  auto b = run_kernel("Reshape", {tensor::from_vector<bool>({true, false, false, true}, {2, 2}),
                                  tensor::from_vector<int64_t>({4})});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {4}, {true, false, false, true});

  auto u = run_kernel(
      "Reshape", {tensor::from_vector<uint8_t>({7, 8, 9}), tensor::from_vector<int32_t>({1, -1})});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {1, 3}, {7, 8, 9});

  auto to_scalar = run_kernel(
      "Reshape", {tensor::from_vector<double>({2.5}, {1, 1}), tensor::from_vector<int32_t>({})});
  REQUIRE(to_scalar.ok());
  check_tensor<double>(to_scalar->at(0), {}, {2.5});

  auto from_scalar = run_kernel(
      "Reshape", {tensor::scalar<int64_t>(-4), tensor::from_vector<int32_t>({1, 1, -1})});
  REQUIRE(from_scalar.ok());
  check_tensor<int64_t>(from_scalar->at(0), {1, 1, 1}, {-4});

  auto empty = run_kernel("Reshape",
                          {tensor(dtype::int32, {0, 3}), tensor::from_vector<int32_t>({-1, 3, 1})});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 3, 1});
}

TEST_CASE("Reshape errors name the requested shape and both element counts") {
  const tensor x = iota_f({2, 3});
  check_error(run_kernel("Reshape", {x, tensor::from_vector<int32_t>({-1, -1})}),
              "only one dimension may be -1, not both 0 and 1");
  check_error(run_kernel("Reshape", {x, tensor::from_vector<int32_t>({4})}),
              "input to reshape has 6 elements, but requested shape [4] has 4");
  check_error(run_kernel("Reshape", {x, tensor::from_vector<int64_t>({-1, 4})}),
              "6 elements, not a multiple of the 4");
  check_error(run_kernel("Reshape", {x, tensor::from_vector<int32_t>({3, -2})}),
              "negative dimension at index 1");
  check_error(run_kernel("Reshape",
                         {tensor(dtype::float32, {3, 0}), tensor::from_vector<int32_t>({0, -1})}),
              "cannot infer the -1");
  check_error(run_kernel("Reshape", {x, tensor::from_vector<int32_t>({2, 3}, {1, 2})}),
              "must have rank 1");
}

TEST_CASE("Reshape's shape function resolves constant shapes at graph construction") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3}});
  auto flat = ops::reshape(root.with_op_name("flat"), x, {-1, 2});
  CHECK(flat.node == "flat");
  CHECK(root.shape_of(flat) == partial_shape{3, 2});

  auto batch = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  CHECK(root.shape_of(ops::reshape(root, batch, {-1, 6})) == partial_shape{-1, 6});
  CHECK(root.shape_of(ops::reshape(root, batch, {3, 2})) == partial_shape{3, 2});

  auto empty = ops::placeholder(root, dtype::float32, {.shape = partial_shape{3, 0}});
  CHECK(root.shape_of(ops::reshape(root, empty, {0, 3, 1})) == partial_shape{0, 3, 1});

  auto dims = ops::placeholder(root, dtype::int32, {.shape = partial_shape{4}});
  CHECK(root.shape_of(ops::reshape(root, x, dims)) == partial_shape::unknown_of_rank(4));
  REQUIRE(root.ok());

  auto bad = scope::new_root();
  auto y = ops::placeholder(bad, dtype::float32, {.shape = partial_shape{2, 3}});
  ops::reshape(bad.with_op_name("r"), y, {4});
  check_error(bad.get_status(), "node 'r' (Reshape): input to reshape has 6 elements");

  auto partial = scope::new_root();
  auto z = ops::placeholder(partial, dtype::float32, {.shape = partial_shape{-1, 3}});
  ops::reshape(partial, z, {4});
  check_error(partial.get_status(), "cannot equal the 4 of requested shape [4]");
}

TEST_CASE("Shape, Size and Rank describe the input") {
  const tensor x = iota_f({2, 3, 1});
  auto s = run_kernel("Shape", {x});
  REQUIRE(s.ok());
  check_tensor<int32_t>(s->at(0), {3}, {2, 3, 1});
  auto s64 = run_kernel("Shape", {tensor(dtype::boolean, {0, 5})}, {{"out_type", dtype::int64}});
  REQUIRE(s64.ok());
  check_tensor<int64_t>(s64->at(0), {2}, {0, 5});
  auto scalar_shape = run_kernel("Shape", {tensor::scalar<uint8_t>(1)});
  REQUIRE(scalar_shape.ok());
  CHECK(scalar_shape->at(0).shape() == tensor_shape{0});

  auto n = run_kernel("Size", {x});
  REQUIRE(n.ok());
  check_tensor<int32_t>(n->at(0), {}, {6});
  auto n64 = run_kernel("Size", {tensor(dtype::float64, {4, 0})}, {{"out_type", dtype::int64}});
  REQUIRE(n64.ok());
  check_tensor<int64_t>(n64->at(0), {}, {0});

  auto r = run_kernel("Rank", {x});
  REQUIRE(r.ok());
  check_tensor<int32_t>(r->at(0), {}, {3});
  auto r0 = run_kernel("Rank", {tensor::scalar<int64_t>(9)});
  REQUIRE(r0.ok());
  check_tensor<int32_t>(r0->at(0), {}, {0});

  auto root = scope::new_root();
  auto p = ops::placeholder(root, dtype::int32, {.shape = partial_shape{-1, 4}});
  auto shape64 = ops::shape(root, p, {.out_type = dtype::int64});
  CHECK(shape64.type == dtype::int64);
  CHECK(root.shape_of(shape64) == partial_shape{2});
  CHECK(root.shape_of(ops::shape(root, ops::placeholder(root, dtype::int32))) == partial_shape{-1});
  CHECK(root.shape_of(ops::size(root, p)) == partial_shape(tensor_shape{}));
  CHECK(ops::rank(root, p).type == dtype::int32);
  CHECK(root.ok());
}

TEST_CASE("ExpandDims inserts a 1 at positive and negative axes, sharing the bytes") {
  const tensor x = iota_f({2, 3});
  auto front = run_kernel("ExpandDims", {x, tensor::scalar<int32_t>(0)});
  REQUIRE(front.ok());
  check_tensor<float>(front->at(0), {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(front->at(0).shares_buffer_with(x));

  auto back = run_kernel("ExpandDims", {x, tensor::scalar<int64_t>(-1)});
  REQUIRE(back.ok());
  CHECK(back->at(0).shape() == tensor_shape{2, 3, 1});
  auto middle = run_kernel("ExpandDims", {x, tensor::from_vector<int32_t>({-2})});
  REQUIRE(middle.ok());
  CHECK(middle->at(0).shape() == tensor_shape{2, 1, 3});

  auto scalar = run_kernel("ExpandDims", {tensor::scalar<bool>(true), tensor::scalar<int32_t>(-1)});
  REQUIRE(scalar.ok());
  check_tensor<bool>(scalar->at(0), {1}, {true});

  check_error(run_kernel("ExpandDims", {x, tensor::scalar<int32_t>(3)}),
              "axis 3 is out of range for input of shape [2,3] (allowed: [-3, 2])");
  check_error(run_kernel("ExpandDims", {x, tensor::scalar<int32_t>(-4)}),
              "axis -4 is out of range");
  check_error(run_kernel("ExpandDims", {x, tensor::from_vector<int32_t>({0, 1})}),
              "axis must hold a single value");

  auto root = scope::new_root();
  auto p = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  CHECK(root.shape_of(ops::expand_dims(root, p, 1)) == partial_shape{-1, 1, 3});
  auto axis = ops::placeholder(root, dtype::int32, {.shape = partial_shape(tensor_shape{})});
  CHECK(root.shape_of(ops::expand_dims(root, p, axis)) == partial_shape::unknown_of_rank(3));
  CHECK(root.ok());
}

TEST_CASE("Squeeze drops dimensions of size 1, sharing the bytes") {
  const tensor x = iota_f({1, 2, 1, 3});
  auto all = run_kernel("Squeeze", {x});
  REQUIRE(all.ok());
  check_tensor<float>(all->at(0), {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(all->at(0).shares_buffer_with(x));

  auto one = run_kernel("Squeeze", {x}, {{"squeeze_dims", std::vector<int64_t>{2}}});
  REQUIRE(one.ok());
  CHECK(one->at(0).shape() == tensor_shape{1, 2, 3});
  auto negative = run_kernel("Squeeze", {x}, {{"squeeze_dims", std::vector<int64_t>{-4}}});
  REQUIRE(negative.ok());
  CHECK(negative->at(0).shape() == tensor_shape{2, 1, 3});

  auto to_scalar = run_kernel("Squeeze", {tensor::from_vector<int64_t>({5}, {1, 1})});
  REQUIRE(to_scalar.ok());
  check_tensor<int64_t>(to_scalar->at(0), {}, {5});

  check_error(run_kernel("Squeeze", {x}, {{"squeeze_dims", std::vector<int64_t>{1}}}),
              "cannot squeeze dimension 1 of shape [1,2,1,3]: its size is 2, not 1");
  check_error(run_kernel("Squeeze", {x}, {{"squeeze_dims", std::vector<int64_t>{4}}}),
              "squeeze_dims entry 4 is out of range");

  auto root = scope::new_root();
  auto p = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 1, 3}});
  CHECK(root.shape_of(ops::squeeze(root, p)) == partial_shape::unknown());
  CHECK(root.shape_of(ops::squeeze(root, p, {.axes = {1}})) == partial_shape{-1, 3});
  CHECK(root.ok());
  ops::squeeze(root, p, {.axes = {-1}});
  check_error(root.get_status(), "its size is 3, not 1");
}

TEST_CASE("Reshape, ExpandDims and Squeeze check fed shapes at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto r = ops::reshape(root.with_op_name("r"), x, {2, 3});
  auto axis = ops::placeholder(root.with_op_name("axis"), dtype::int32);
  auto e = ops::expand_dims(root, x, axis);
  auto sq = ops::squeeze(root, x, {.axes = {0}});
  REQUIRE(root.ok());
  session sess(root);
  auto ok = sess.run({{x, iota_f({3, 2})}}, {r});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {2, 3}, {1, 2, 3, 4, 5, 6});
  check_error(sess.run({{x, iota_f({5})}}, {r}),
              "input to reshape has 5 elements, but requested shape [2,3] has 6");
  check_error(sess.run({{x, iota_f({2})}, {axis, tensor::scalar<int32_t>(2)}}, {e}),
              "axis 2 is out of range for input of shape [2]");
  check_error(sess.run({{x, iota_f({2, 1})}}, {sq}),
              "cannot squeeze dimension 0 of shape [2,1]: its size is 2, not 1");
}
