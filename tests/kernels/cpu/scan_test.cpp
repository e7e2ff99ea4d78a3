// Cumsum and Cumprod kernels: every combination of exclusive and reverse on hand-computed
// values, each dtype, inner and leading axes, wide tensors (the blocked, parallel path), empty
// tensors, and the errors.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/scan_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor scan(const char* op, const tensor& x, int32_t axis, bool exclusive = false,
            bool reverse = false) {
  auto out = run_kernel(op, {x, tensor::scalar<int32_t>(axis)},
                        {{"exclusive", exclusive}, {"reverse", reverse}});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0);
}

template <class T>
tensor m23() {
  return tensor::from_vector<T>({1, 2, 3, 4, 5, 6}, {2, 3});
}

}  // namespace

TEST_CASE("Cumsum along the last axis, exclusive and reversed") {
  check_tensor<float>(scan("Cumsum", m23<float>(), 1), {2, 3}, {1, 3, 6, 4, 9, 15});
  check_tensor<float>(scan("Cumsum", m23<float>(), 1, true), {2, 3}, {0, 1, 3, 0, 4, 9});
  check_tensor<float>(scan("Cumsum", m23<float>(), -1, false, true), {2, 3}, {6, 5, 3, 15, 11, 6});
  check_tensor<float>(scan("Cumsum", m23<float>(), 1, true, true), {2, 3}, {5, 3, 0, 11, 6, 0});
}

TEST_CASE("Cumsum along a leading axis, every dtype") {
  check_tensor<double>(scan("Cumsum", m23<double>(), 0), {2, 3}, {1, 2, 3, 5, 7, 9});
  check_tensor<int32_t>(scan("Cumsum", m23<int32_t>(), -2, false, true), {2, 3},
                        {5, 7, 9, 4, 5, 6});
  check_tensor<int64_t>(scan("Cumsum", m23<int64_t>(), 0, true), {2, 3}, {0, 0, 0, 1, 2, 3});
  // The middle axis of arange(12).reshape(2, 3, 2).
  check_tensor<int32_t>(scan("Cumsum", iota<int32_t>({2, 3, 2}), 1), {2, 3, 2},
                        {0, 1, 2, 4, 6, 9, 6, 7, 14, 16, 24, 27});
}

TEST_CASE("Cumprod, exclusive and reversed, every dtype") {
  check_tensor<float>(scan("Cumprod", m23<float>(), 1), {2, 3}, {1, 2, 6, 4, 20, 120});
  check_tensor<double>(scan("Cumprod", m23<double>(), 1, true), {2, 3}, {1, 1, 2, 1, 4, 20});
  check_tensor<int32_t>(scan("Cumprod", m23<int32_t>(), 1, false, true), {2, 3},
                        {6, 6, 3, 120, 30, 6});
  check_tensor<int64_t>(scan("Cumprod", m23<int64_t>(), 1, true, true), {2, 3},
                        {6, 3, 1, 30, 6, 1});
  check_tensor<float>(scan("Cumprod", m23<float>(), 0), {2, 3}, {1, 2, 3, 4, 10, 18});
  // A zero stops the product for everything after it, and only that.
  check_tensor<float>(scan("Cumprod", tensor::from_vector<float>({2, 0, 3}), 0), {3}, {2, 0, 0});
}

TEST_CASE("wide scans split their rows into blocks and agree with the plain sums") {
  // 3 x 2500 ones along axis 0: row i holds i + 1 everywhere (rows wider than one block).
  const tensor ones = tensor::filled<float>({3, 2500}, 1.0f);
  const tensor down = scan("Cumsum", ones, 0);
  const tensor up = scan("Cumsum", ones, 0, true, true);
  int bad = 0;
  for (int64_t k = 0; k < 3 * 2500; ++k) {
    bad += down.data<float>()[k] != static_cast<float>(k / 2500 + 1);
    bad += up.data<float>()[k] != static_cast<float>(2 - k / 2500);
  }
  CHECK(bad == 0);
  // Many short rows along the last axis: 4000 x 3 of twos, products 2, 4, 8.
  const tensor p = scan("Cumprod", tensor::filled<double>({4000, 3}, 2.0), 1);
  for (int64_t k = 0; k < 4000 * 3; ++k) bad += p.data<double>()[k] != double(2 << (k % 3));
  CHECK(bad == 0);
}

TEST_CASE("empty tensors scan to empty tensors") {
  check_tensor<float>(scan("Cumsum", tensor::from_vector<float>({}, {0, 3}), 0), {0, 3}, {});
  check_tensor<int64_t>(scan("Cumprod", tensor::from_vector<int64_t>({}, {2, 0}), 1, true), {2, 0},
                        {});
}

TEST_CASE("scan errors name the axis, the rank and the shapes") {
  check_error(run_kernel("Cumsum", {m23<float>(), tensor::scalar<int32_t>(2)}),
              "axis 2 is out of range [-2, 2)");
  check_error(run_kernel_unchecked("Cumsum", {m23<float>(), tensor::scalar<int64_t>(-3)}),
              "axis -3 is out of range [-2, 2)");
  check_error(
      run_kernel_unchecked("Cumprod", {tensor::scalar<float>(2), tensor::scalar<int32_t>(0)}),
      "x must have rank at least 1, got shape []");
  check_error(run_kernel("Cumprod", {tensor::scalar<float>(2), tensor::scalar<int32_t>(0)}),
              "x must have rank at least 1, got a scalar");
  check_error(run_kernel_unchecked("Cumsum", {m23<float>(), tensor::from_vector<int32_t>({0})}),
              "axis must be a scalar, got shape [1]");
}

TEST_CASE("ops::cumsum and ops::cumprod infer shapes and check constant axes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 4}});
  auto y = ops::cumprod(root, x, 1, {.exclusive = true, .reverse = true});
  CHECK(root.shape_of(y) == partial_shape{-1, 4});
  REQUIRE(root.ok());
  ops::cumsum(root.with_op_name("bad"), x, 2);
  check_error(root.get_status(), "'bad'");
  check_error(root.get_status(), "axis 2 is out of range [-2, 2)");
}
