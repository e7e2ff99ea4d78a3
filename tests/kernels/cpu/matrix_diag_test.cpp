// MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;

namespace {
tensor i64(int64_t v) { return tensor::scalar<int64_t>(v); }
}  // namespace

TEST_CASE("MatrixDiag and MatrixDiagPart, batched") {
  auto d = run_kernel("MatrixDiag", {iota<int32_t>({2, 2}, 1)});
  REQUIRE(d.ok());
  check_tensor<int32_t>(d->at(0), {2, 2, 2}, {1, 0, 0, 2, 3, 0, 0, 4});
  auto p = run_kernel("MatrixDiagPart", {iota<float>({2, 2, 3})});
  REQUIRE(p.ok());
  check_tensor<float>(p->at(0), {2, 2}, {0, 4, 6, 10});
}

TEST_CASE("MatrixSetDiag replaces the main diagonal") {
  auto out = run_kernel("MatrixSetDiag", {iota<double>({3, 2}), tensor::from_vector<double>({-1, -2})});
  REQUIRE(out.ok());
  check_tensor<double>(out->at(0), {3, 2}, {-1, 1, 2, -2, 4, 5});
  check_error(run_kernel("MatrixSetDiag", {iota<double>({3, 2}), tensor::from_vector<double>({1})}),
              "diagonal has shape [1] but input [3,2] needs [2]");
}

TEST_CASE("MatrixBandPart keeps a band: lower triangle, upper triangle, tridiagonal") {
  auto m = iota<float>({3, 3}, 1);
  auto lower = run_kernel("MatrixBandPart", {m, i64(-1), i64(0)});
  REQUIRE(lower.ok());
  check_tensor<float>(lower->at(0), {3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9});
  auto upper = run_kernel("MatrixBandPart", {m, i64(0), i64(-1)});
  REQUIRE(upper.ok());
  check_tensor<float>(upper->at(0), {3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9});
  auto tri = run_kernel("MatrixBandPart", {m, tensor::scalar<int32_t>(1), tensor::scalar<int32_t>(1)});
  REQUIRE(tri.ok());
  check_tensor<float>(tri->at(0), {3, 3}, {1, 2, 0, 4, 5, 6, 0, 8, 9});
  check_error(run_kernel("MatrixBandPart", {m, i64(4), i64(0)}), "num_lower 4 must not exceed");
  check_error(run_kernel("MatrixBandPart", {iota<float>({3}), i64(0), i64(0)}),
              "input 0 must have rank at least 2");
}
