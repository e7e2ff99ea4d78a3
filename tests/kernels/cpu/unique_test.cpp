// Unique: values in order of first occurrence and each element's position among them.
#include <doctest/doctest.h>

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

TEST_CASE("Unique keeps the order of first occurrence") {
  auto out = run_kernel("Unique", {tensor::from_vector<int32_t>({1, 1, 2, 4, 4, 4, 7, 8, 8})});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {5}, {1, 2, 4, 7, 8});
  check_tensor<int32_t>(out->at(1), {9}, {0, 0, 1, 2, 2, 2, 3, 4, 4});
  // Not sorted: the first value seen comes first.
  auto unsorted = run_kernel("Unique", {tensor::from_vector<int64_t>({5, 3, 5, 1, 3})});
  REQUIRE(unsorted.ok());
  check_tensor<int64_t>(unsorted->at(0), {3}, {5, 3, 1});
  check_tensor<int32_t>(unsorted->at(1), {5}, {0, 1, 0, 2, 1});
}

TEST_CASE("Unique with int64 out_idx, floats and doubles") {
  auto out = run_kernel("Unique", {tensor::from_vector<float>({2.5f, -1, 2.5f, 0.0f, -0.0f})},
                        {{"out_idx", dtype::int64}});
  REQUIRE(out.ok());
  // 0.0 and -0.0 compare equal: one value.
  check_tensor<float>(out->at(0), {3}, {2.5f, -1, 0});
  check_tensor<int64_t>(out->at(1), {5}, {0, 1, 0, 2, 2});
  auto d = run_kernel("Unique", {tensor::from_vector<double>({0.1, 0.2, 0.1})});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {2}, {0.1, 0.2});
  check_tensor<int32_t>(d->at(1), {3}, {0, 1, 0});
}

TEST_CASE("Unique of an empty vector is empty") {
  auto out = run_kernel("Unique", {tensor(dtype::int64, tensor_shape{0})});
  REQUIRE(out.ok());
  CHECK(out->at(0).shape() == tensor_shape{0});
  CHECK(out->at(1).shape() == tensor_shape{0});
}

TEST_CASE("Unique refuses anything but a vector") {
  auto m = tensor::from_vector<int32_t>({1, 2, 3, 4}, {2, 2});
  check_error(run_kernel("Unique", {m}), "(Unique)");
  check_error(run_kernel_unchecked("Unique", {m}), "x must be a vector, got shape [2,2]");
  check_error(run_kernel_unchecked("Unique", {tensor::scalar<int32_t>(3)}),
              "x must be a vector, got shape []");
}

TEST_CASE("Unique's shapes: y has unknown length, idx has x's shape") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::int64, {.shape = partial_shape{6}});
  auto yi = ops::unique(root, x, dtype::int64);
  REQUIRE(root.ok());
  CHECK(root.shape_of(yi[0]) == partial_shape{-1});
  CHECK(root.shape_of(yi[1]) == partial_shape{6});
  CHECK(yi[1].type == dtype::int64);
  ops::unique(root.with_op_name("bad"), ops::constant(root, tensor(dtype::float32, {2, 2})));
  check_error(root.get_status(), "node 'bad' (Unique)");
}
