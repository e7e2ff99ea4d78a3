// Where, TopKV2 and InTopKV2 kernels and shape functions.
#include <doctest/doctest.h>

#include <limits>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

TEST_CASE("Where lists the coordinates of true and non-zero elements") {
  auto b = run_kernel("Where", {tensor::from_vector<bool>({true, false, false, true, true, false},
                                                          {2, 3})});
  REQUIRE(b.ok());
  check_tensor<int64_t>(b->at(0), {3, 2}, {0, 0, 1, 0, 1, 1});
  auto f = run_kernel("Where", {tensor::from_vector<float>({0, 2.5f, 0, -1})});
  REQUIRE(f.ok());
  check_tensor<int64_t>(f->at(0), {2, 1}, {1, 3});
  auto none = run_kernel("Where", {tensor(dtype::int32, {2, 0, 3})});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{0, 3});
  auto scalar = run_kernel("Where", {tensor::scalar<bool>(true)});
  REQUIRE(scalar.ok());
  CHECK(scalar->at(0).shape() == tensor_shape{1, 0});
}

TEST_CASE("TopKV2 takes the k largest of each row, lower index first among equals") {
  auto x = tensor::from_vector<float>({1, 5, 3, 5, 2, 9, 0, -1}, {2, 4});
  auto out = run_kernel("TopKV2", {x, tensor::scalar<int32_t>(2)});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 2}, {5, 5, 9, 2});
  check_tensor<int32_t>(out->at(1), {2, 2}, {1, 3, 1, 0});
  auto all = run_kernel("TopKV2", {tensor::from_vector<int64_t>({3, 1, 2}),
                                   tensor::scalar<int32_t>(3)},
                        {{"sorted", false}});
  REQUIRE(all.ok());
  check_tensor<int64_t>(all->at(0), {3}, {3, 2, 1});
  check_tensor<int32_t>(all->at(1), {3}, {0, 2, 1});
  auto zero = run_kernel("TopKV2", {iota<double>({2, 3}), tensor::scalar<int32_t>(0)});
  REQUIRE(zero.ok());
  CHECK(zero->at(0).shape() == tensor_shape{2, 0});
}

TEST_CASE("TopKV2 rejects k above the last dimension, negative k and scalars") {
  check_error(run_kernel("TopKV2", {iota<float>({2, 3}), tensor::scalar<int32_t>(4)}),
              "input must have at least k = 4 columns, got shape [2,3]");
  check_error(run_kernel_unchecked("TopKV2", {iota<float>({2, 3}), tensor::scalar<int32_t>(4)}),
              "input must have at least k = 4 columns");
  check_error(run_kernel("TopKV2", {iota<float>({3}), tensor::scalar<int32_t>(-1)}),
              "k must be non-negative");
  check_error(run_kernel_unchecked("TopKV2", {tensor::scalar<float>(1), tensor::scalar<int32_t>(1)}),
              "input must be at least 1-D");
}

TEST_CASE("InTopKV2 counts strictly larger predictions") {
  auto p = tensor::from_vector<float>({0.1f, 0.5f, 0.5f, 0.2f, 0.9f, 0.3f, 0.8f, 0.7f}, {2, 4});
  auto k1 = run_kernel("InTopKV2", {p, tensor::from_vector<int32_t>({2, 3}),
                                    tensor::scalar<int32_t>(1)});
  REQUIRE(k1.ok());
  // Row 0: class 2 ties the maximum, so it is in the top 1; row 1: class 3 is third.
  check_tensor<bool>(k1->at(0), {2}, {true, false});
  auto k3 = run_kernel("InTopKV2", {p, tensor::from_vector<int64_t>({0, 3}),
                                    tensor::scalar<int64_t>(3)});
  REQUIRE(k3.ok());
  check_tensor<bool>(k3->at(0), {2}, {false, true});
  // Out-of-range targets and non-finite rows are never in the top k.
  auto q = tensor::from_vector<float>({1, std::numeric_limits<float>::quiet_NaN(), 1, 2}, {2, 2});
  auto bad = run_kernel("InTopKV2", {q, tensor::from_vector<int32_t>({0, 5}),
                                     tensor::scalar<int32_t>(2)});
  REQUIRE(bad.ok());
  check_tensor<bool>(bad->at(0), {2}, {false, false});
  check_error(run_kernel("InTopKV2", {p, tensor::from_vector<int32_t>({1}),
                                      tensor::scalar<int32_t>(1)}),
              "must agree on the batch size");
}
