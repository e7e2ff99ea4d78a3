// ListDiff, UniqueWithCounts, Bincount, Reverse (v1), Roll, Diag and DiagPart kernels.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::vec32;

TEST_CASE("ListDiff keeps x's elements missing from y, with their positions") {
  auto out = run_kernel("ListDiff", {vec32({1, 2, 3, 4, 2, 6}), vec32({2, 4, 7})},
                        {{"out_idx", dtype::int64}});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {3}, {1, 3, 6});
  check_tensor<int64_t>(out->at(1), {3}, {0, 2, 5});
  check_error(run_kernel("ListDiff", {iota<float>({2, 2}), tensor::from_vector<float>({1})}),
              "input 0 must have rank 1");
}

TEST_CASE("UniqueWithCounts counts each distinct value") {
  auto out = run_kernel("UniqueWithCounts", {tensor::from_vector<double>({1, 1, 2, 4, 4, 4, 7, 8, 8})});
  REQUIRE(out.ok());
  check_tensor<double>(out->at(0), {5}, {1, 2, 4, 7, 8});
  check_tensor<int32_t>(out->at(1), {9}, {0, 0, 1, 2, 2, 2, 3, 4, 4});
  check_tensor<int32_t>(out->at(2), {5}, {2, 1, 3, 1, 2});
}

TEST_CASE("Bincount counts or sums weights per value; values past size are dropped") {
  auto counts = run_kernel("Bincount", {vec32({1, 1, 3, 7}), tensor::scalar<int32_t>(5),
                                        tensor(dtype::int32, {0})});
  REQUIRE(counts.ok());
  check_tensor<int32_t>(counts->at(0), {5}, {0, 2, 0, 1, 0});
  auto sums = run_kernel("Bincount", {vec32({0, 2, 2}), tensor::scalar<int32_t>(3),
                                      tensor::from_vector<float>({0.5f, 1, 2})});
  REQUIRE(sums.ok());
  check_tensor<float>(sums->at(0), {3}, {0.5f, 0, 3});
  check_error(run_kernel("Bincount", {vec32({0, -1}), tensor::scalar<int32_t>(3),
                                      tensor(dtype::float32, {0})}),
              "arr[1] = -1 is negative");
  check_error(run_kernel("Bincount", {vec32({0}), tensor::scalar<int32_t>(3),
                                      tensor::from_vector<float>({1, 2})}),
              "weights has shape [2] but arr has shape [1]");
}

TEST_CASE("Reverse (v1) takes one flag per dimension; Roll wraps around") {
  auto r = run_kernel("Reverse", {iota<int32_t>({2, 3}), tensor::from_vector<bool>({false, true})});
  REQUIRE(r.ok());
  check_tensor<int32_t>(r->at(0), {2, 3}, {2, 1, 0, 5, 4, 3});
  check_error(run_kernel("Reverse", {iota<int32_t>({2, 3}), tensor::from_vector<bool>({true})}),
              "dims has 1 entries but tensor has rank 2");
  auto roll = run_kernel("Roll", {iota<int32_t>({5}), tensor::scalar<int32_t>(2),
                                  tensor::scalar<int32_t>(0)});
  REQUIRE(roll.ok());
  check_tensor<int32_t>(roll->at(0), {5}, {3, 4, 0, 1, 2});
  // Two shifts along axis 1 add up (1 + -3 = -2); rows roll by 1.
  auto both = run_kernel("Roll", {iota<float>({2, 3}), tensor::from_vector<int64_t>({1, -3, 1}),
                                  tensor::from_vector<int64_t>({1, 1, 0})});
  REQUIRE(both.ok());
  check_tensor<float>(both->at(0), {2, 3}, {5, 3, 4, 2, 0, 1});
  check_error(run_kernel("Roll", {iota<float>({2, 3}), vec32({1, 2}), vec32({1})}),
              "they must have one length");
  check_error(run_kernel("Roll", {iota<float>({2, 3}), vec32({1}), vec32({2})}),
              "axis 2 is out of range");
}

TEST_CASE("Diag doubles the rank; DiagPart undoes it") {
  auto d = run_kernel("Diag", {tensor::from_vector<int64_t>({1, 2, 3, 4}, {2, 2})});
  REQUIRE(d.ok());
  CHECK(d->at(0).shape() == tensor_shape{2, 2, 2, 2});
  const int64_t* v = d->at(0).data<int64_t>();
  CHECK(v[0] == 1);
  CHECK(v[5] == 2);
  CHECK(v[10] == 3);
  CHECK(v[15] == 4);
  CHECK(v[1] == 0);
  auto p = run_kernel("DiagPart", {d->at(0)});
  REQUIRE(p.ok());
  check_tensor<int64_t>(p->at(0), {2, 2}, {1, 2, 3, 4});
  check_error(run_kernel("DiagPart", {iota<float>({2, 3})}), "is not [d1..dk, d1..dk]");
  check_error(run_kernel("DiagPart", {iota<float>({2, 2, 2})}), "even, non-zero rank");
}
