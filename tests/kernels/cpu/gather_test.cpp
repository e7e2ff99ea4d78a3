#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor axis32(int32_t a) { return tensor::scalar<int32_t>(a); }
tensor idx32(std::vector<int32_t> v) { return tensor::from_vector<int32_t>(v); }

}  // namespace

TEST_CASE("GatherV2 picks rows along axis 0") {
  auto params = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto out = run_kernel("GatherV2", {params, idx32({2, 0, 2}), axis32(0)});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {3, 2}, {5, 6, 1, 2, 5, 6});
}

TEST_CASE("GatherV2 along an inner axis, negative axes count from the end") {
  auto params = tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = run_kernel("GatherV2", {params, idx32({2, 2, 0}), axis32(1)});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {2, 3}, {3, 3, 1, 6, 6, 4});
  auto neg = run_kernel("GatherV2", {params, idx32({1}), axis32(-1)});
  REQUIRE(neg.ok());
  check_tensor<int32_t>(neg->at(0), {2, 1}, {2, 5});
  // A middle axis of p = arange(12).reshape(2, 3, 2): p[:, [2, 1], :].
  std::vector<uint8_t> p(12);
  for (int i = 0; i < 12; ++i) p[i] = static_cast<uint8_t>(i);
  auto mid = run_kernel("GatherV2",
                        {tensor::from_vector<uint8_t>(p, {2, 3, 2}), idx32({2, 1}), axis32(1)});
  REQUIRE(mid.ok());
  check_tensor<uint8_t>(mid->at(0), {2, 2, 2}, {4, 5, 2, 3, 10, 11, 8, 9});
}

TEST_CASE("GatherV2 with matrix and scalar indices") {
  auto params = tensor::from_vector<int64_t>({10, 20, 30, 40});
  auto grid = run_kernel("GatherV2",
                         {params, tensor::from_vector<int32_t>({3, 0, 1, 1}, {2, 2}), axis32(0)});
  REQUIRE(grid.ok());
  check_tensor<int64_t>(grid->at(0), {2, 2}, {40, 10, 20, 20});
  auto rows = tensor::from_vector<double>({1, 2, 3, 4}, {2, 2});
  auto one = run_kernel("GatherV2", {rows, tensor::scalar<int32_t>(1), axis32(0)});
  REQUIRE(one.ok());
  check_tensor<double>(one->at(0), {2}, {3, 4});
}

TEST_CASE("GatherV2 with int64 indices and axis, bool params") {
  auto params = tensor::from_vector<bool>({true, false, false});
  auto out = run_kernel(
      "GatherV2", {params, tensor::from_vector<int64_t>({1, 0, 0}), tensor::scalar<int64_t>(0)});
  REQUIRE(out.ok());
  check_tensor<bool>(out->at(0), {3}, {false, true, true});
}

TEST_CASE("GatherV2 with zero-size indices or params") {
  auto params = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto none = run_kernel("GatherV2", {params, tensor(dtype::int32, {0}), axis32(0)});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{0, 2});
  auto empty_rows =
      run_kernel("GatherV2", {tensor(dtype::float32, {2, 0}), idx32({1, 0, 1}), axis32(0)});
  REQUIRE(empty_rows.ok());
  CHECK(empty_rows->at(0).shape() == tensor_shape{3, 0});
}

TEST_CASE("GatherV2 of many rows and many scalars") {
  const int64_t rows = 1000, cols = 64;
  std::vector<float> p(rows * cols);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<float>(i);
  std::vector<int32_t> rev(rows);
  for (int64_t i = 0; i < rows; ++i) rev[i] = static_cast<int32_t>(rows - 1 - i);
  auto out = run_kernel("GatherV2", {tensor::from_vector<float>(p, {rows, cols}),
                                     tensor::from_vector<int32_t>(rev), axis32(0)});
  REQUIRE(out.ok());
  const float* y = out->at(0).data<float>();
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) bad += y[r * cols + c] != float((rows - 1 - r) * cols + c);
  CHECK(bad == 0);

  // Scalars picked along the inner axis: out[r][k] = p[r][63 - k].
  std::vector<int64_t> flip(cols);
  for (int64_t k = 0; k < cols; ++k) flip[k] = cols - 1 - k;
  auto inner = run_kernel("GatherV2", {tensor::from_vector<float>(p, {rows, cols}),
                                       tensor::from_vector<int64_t>(flip), axis32(1)});
  REQUIRE(inner.ok());
  const float* z = inner->at(0).data<float>();
  bad = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k) bad += z[r * cols + k] != float(r * cols + cols - 1 - k);
  CHECK(bad == 0);
}

TEST_CASE("GatherV2 rejects out-of-range indices naming the index and the range") {
  auto params = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  check_error(run_kernel("GatherV2", {params, idx32({0, 5}), axis32(0)}),
              "indices[1] = 5 is not in [0, 3)");
  check_error(run_kernel("GatherV2", {params, idx32({-1}), axis32(0)}),
              "indices[0] = -1 is not in [0, 3)");
  check_error(run_kernel("GatherV2",
                         {params, tensor::from_vector<int64_t>({0, 1, 7, 0}, {2, 2}), axis32(1)}),
              "indices[1,0] = 7 is not in [0, 2)");
  check_error(run_kernel("GatherV2", {params, tensor::scalar<int32_t>(3), axis32(0)}),
              "indices = 3 is not in [0, 3)");
  check_error(run_kernel("GatherV2", {params, idx32({0}), axis32(2)}),
              "axis 2 is out of range [-2, 2)");
  check_error(run_kernel("GatherV2", {tensor::scalar<float>(1), idx32({0}), axis32(0)}),
              "rank at least 1");
}

TEST_CASE("GatherV2 with batch_dims pairs the leading dims of params and indices") {
  // params [[1, 2, 3], [4, 5, 6]], indices [[2, 0], [1, 1]]: row t gathers from params[t].
  auto params = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto indices = tensor::from_vector<int32_t>({2, 0, 1, 1}, {2, 2});
  auto out = run_kernel("GatherV2", {params, indices, axis32(1)}, {{"batch_dims", 1}});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 2}, {3, 1, 5, 5});
  // batch_dims -1 counts from the end of indices' dims: the same gather.
  auto negative = run_kernel("GatherV2", {params, indices, axis32(-1)}, {{"batch_dims", -1}});
  REQUIRE(negative.ok());
  check_tensor<float>(negative->at(0), {2, 2}, {3, 1, 5, 5});
  // An axis past the batch dims: p = arange(12).reshape(2, 2, 3), indices [[2], [0]],
  // axis 2: out[t, r, 0] = p[t, r, indices[t, 0]] = 2, 5 for t = 0 and 6, 9 for t = 1.
  auto p = tensor::from_vector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 2, 3});
  auto inner = run_kernel("GatherV2", {p, tensor::from_vector<int64_t>({2, 0}, {2, 1}), axis32(2)},
                          {{"batch_dims", 1}});
  REQUIRE(inner.ok());
  check_tensor<int64_t>(inner->at(0), {2, 2, 1}, {2, 5, 6, 9});
  // Two batch dims and rows of two elements: p[t0, t1, indices[t0, t1, :], :].
  auto rows = run_kernel("GatherV2",
                         {iota<double>({2, 2, 2, 2}),
                          tensor::from_vector<int32_t>({1, 0, 0, 1}, {2, 2, 1}), axis32(2)},
                         {{"batch_dims", 2}});
  REQUIRE(rows.ok());
  check_tensor<double>(rows->at(0), {2, 2, 1, 2}, {2, 3, 4, 5, 8, 9, 14, 15});
}

TEST_CASE("GatherV2's batch_dims errors name the mismatch") {
  auto params = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  check_error(run_kernel_unchecked(
                  "GatherV2", {params, tensor::from_vector<int32_t>({0, 0, 0}, {3, 1}), axis32(1)},
                  {{"batch_dims", 1}}),
              "batch dimension 0 of params [2,3] and indices [3,1] differ (batch_dims 1)");
  check_error(
      run_kernel("GatherV2", {params, tensor::from_vector<int32_t>({0, 0, 0}, {3, 1}), axis32(1)},
                 {{"batch_dims", 1}}),
      "batch dimension 0 of params [2,3] and indices [3,1] differ (batch_dims 1)");
  check_error(
      run_kernel_unchecked("GatherV2", {params, idx32({0, 1}), axis32(1)}, {{"batch_dims", 2}}),
      "batch_dims 2 is out of range [-1, 1] for indices of shape [2]");
  check_error(run_kernel("GatherV2", {params, idx32({0, 1}), axis32(1)}, {{"batch_dims", -2}}),
              "batch_dims -2 is out of range [-1, 1] for indices of shape [2]");
  check_error(
      run_kernel_unchecked("GatherV2", {params, idx32({0, 1}), axis32(0)}, {{"batch_dims", 1}}),
      "axis 0 must not be less than batch_dims 1");
  check_error(run_kernel("GatherV2", {params, idx32({0, 1}), axis32(0)}, {{"batch_dims", 1}}),
              "axis 0 must not be less than batch_dims 1");
  check_error(
      run_kernel("GatherV2", {params, tensor::from_vector<int32_t>({0, 3}, {2, 1}), axis32(1)},
                 {{"batch_dims", 1}}),
      "indices[1,0] = 3 is not in [0, 3)");
}

TEST_CASE("ops::gather infers the output shape") {
  auto root = scope::new_root();
  auto params = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 5}});
  auto indices = ops::placeholder(root, dtype::int32, {.shape = partial_shape{2, 3}});
  auto a = ops::gather(root, params, indices);
  CHECK(root.shape_of(a) == partial_shape{2, 3, 5});
  auto b = ops::gather(root, params, indices, -1);
  CHECK(root.shape_of(b) == partial_shape{-1, 2, 3});
  auto axis = ops::placeholder(root, dtype::int64, {.shape = partial_shape{}});
  auto c = ops::gather(root, params, indices, axis);
  CHECK(root.shape_of(c) == partial_shape{-1, -1, -1});
  REQUIRE(root.ok());
  ops::gather(root.with_op_name("far"), params, indices, 2);
  check_error(root.get_status(), "node 'far' (GatherV2)");
  check_error(root.get_status(), "axis 2 is out of range [-2, 2)");
}

TEST_CASE("GatherV2 checks fed indices and axis at run time") {
  auto root = scope::new_root();
  auto params = ops::placeholder(root, dtype::float32);
  auto indices = ops::placeholder(root, dtype::int64);
  auto axis = ops::placeholder(root, dtype::int32);
  auto y = ops::gather(root, params, indices, axis);
  REQUIRE(root.ok());
  session sess(root);
  auto p = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto ok =
      sess.run({{params, p}, {indices, tensor::from_vector<int64_t>({1})}, {axis, axis32(1)}}, {y});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {3, 1}, {2, 4, 6});
  check_error(sess.run({{params, p},
                        {indices, tensor::from_vector<int64_t>({0, 2, 9}, {1, 3})},
                        {axis, axis32(0)}},
                       {y}),
              "indices[0,2] = 9 is not in [0, 3) (params shape [3,2], axis 0)");
  check_error(
      sess.run({{params, p}, {indices, tensor::from_vector<int64_t>({0})}, {axis, axis32(-3)}},
               {y}),
      "axis -3 is out of range [-2, 2)");
  check_error(sess.run({{params, tensor::scalar<float>(1)},
                        {indices, tensor::from_vector<int64_t>({0})},
                        {axis, axis32(0)}},
                       {y}),
              "params must have rank at least 1, got shape []");
  check_error(sess.run({{params, p},
                        {indices, tensor::from_vector<int64_t>({0})},
                        {axis, tensor::from_vector<int32_t>({0})}},
                       {y}),
              "axis must be a scalar, got shape [1]");
}

TEST_CASE("ops::gather with batch_dims infers params[:axis] + indices[batch_dims:] + the rest") {
  auto root = scope::new_root();
  auto params = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 4, 5, 6}});
  auto indices = ops::placeholder(root, dtype::int32, {.shape = partial_shape{3, 4, 7}});
  auto g = ops::gather(root, params, indices, 2, {.batch_dims = 2});
  // The batch dim unknown in params is known from indices.
  CHECK(root.shape_of(g) == partial_shape{3, 4, 7, 6});
  CHECK(root.shape_of(ops::gather(root, params, indices, 3, {.batch_dims = 1})) ==
        partial_shape{3, 4, 5, 4, 7});
  REQUIRE(root.ok());
  auto other = ops::placeholder(root, dtype::int32, {.shape = partial_shape{3, 2}});
  ops::gather(root.with_op_name("bad"), params, other, 2, {.batch_dims = 2});
  check_error(root.get_status(),
              "batch dimension 1 of params [?,4,5,6] and indices [3,2] differ (batch_dims 2)");
}
