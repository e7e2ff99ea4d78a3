// FloorDiv and FloorMod round toward negative infinity (Python's // and %), broadcast, and
// refuse an integer divisor of zero.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const tensor& x, const tensor& y) {
  auto r = run_kernel(op, {x, y});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("FloorDiv and FloorMod on integers round toward negative infinity") {
  const auto x = tensor::from_vector<int64_t>({7, -7, 7, -7, 6, 0}, {6});
  const auto y = tensor::from_vector<int64_t>({2, 2, -2, -2, 3, 5}, {6});
  check_tensor(run1("FloorDiv", x, y), {6}, std::vector<int64_t>{3, -4, -4, 3, 2, 0});
  check_tensor(run1("FloorMod", x, y), {6}, std::vector<int64_t>{1, 1, -1, -1, 0, 0});
  // x == FloorDiv(x, y) * y + FloorMod(x, y) for int32 too, with a broadcast scalar divisor.
  const auto xs = tensor::from_vector<int32_t>({-5, -1, 0, 4, 9}, {5});
  check_tensor(run1("FloorDiv", xs, tensor::scalar<int32_t>(3)), {5},
               std::vector<int32_t>{-2, -1, 0, 1, 3});
  check_tensor(run1("FloorMod", xs, tensor::scalar<int32_t>(3)), {5},
               std::vector<int32_t>{1, 2, 0, 1, 0});
}

TEST_CASE("FloorDiv by -1 of the smallest integer wraps instead of trapping") {
  const int32_t min = std::numeric_limits<int32_t>::min();
  check_tensor(run1("FloorDiv", tensor::scalar<int32_t>(min), tensor::scalar<int32_t>(-1)), {},
               std::vector<int32_t>{min});
  check_tensor(run1("FloorMod", tensor::scalar<int32_t>(min), tensor::scalar<int32_t>(-1)), {},
               std::vector<int32_t>{0});
}

TEST_CASE("FloorDiv and FloorMod on floats") {
  const auto x = tensor::from_vector<float>({7.5f, -7.5f, 1.0f}, {3});
  const auto y = tensor::from_vector<float>({2.0f, 2.0f, -4.0f}, {3});
  check_tensor(run1("FloorDiv", x, y), {3}, std::vector<float>{3.0f, -4.0f, -1.0f});
  check_tensor(run1("FloorMod", x, y), {3}, std::vector<float>{1.5f, 0.5f, -3.0f});
}

TEST_CASE("an integer divisor of zero fails the step") {
  const auto x = tensor::from_vector<int32_t>({1, 2}, {2});
  const auto y = tensor::from_vector<int32_t>({1, 0}, {2});
  check_error(run_kernel("FloorDiv", {x, y}), "Integer division by zero (y[1])");
  check_error(run_kernel("FloorMod", {x, y}), "Integer division by zero (y[1])");
}
