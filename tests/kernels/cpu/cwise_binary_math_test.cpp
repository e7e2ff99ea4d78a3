// The broadcasting binary ops of kernels/cpu/cwise_binary_math.cpp and
// cwise_compare_logical.cpp, and ClipByValue (kernels/cpu/clip_kernel.cpp): TF's values,
// broadcasting, and errors naming the node.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_binary_ops.hpp"
#include "graph/client/ops/math_clip_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const std::vector<tensor>& in,
            std::map<std::string, attr_value> attrs = {}) {
  auto r = run_kernel(op, in, std::move(attrs));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor i64(const std::vector<int64_t>& v) { return tensor::from_vector<int64_t>(v); }
tensor f64(const std::vector<double>& v, const tensor_shape& s) {
  return tensor::from_vector<double>(v, s);
}

}  // namespace

TEST_CASE("Mod and TruncateMod truncate toward zero, as C; TruncateDiv too") {
  const auto x = i64({7, -7, 7, -7, 6});
  const auto y = i64({2, 2, -2, -2, 3});
  check_tensor(run1("Mod", {x, y}), {5}, std::vector<int64_t>{1, -1, 1, -1, 0});
  check_tensor(run1("TruncateMod", {x, y}), {5}, std::vector<int64_t>{1, -1, 1, -1, 0});
  check_tensor(run1("TruncateDiv", {x, y}), {5}, std::vector<int64_t>{3, -3, -3, 3, 2});
  check_tensor(run1("Mod", {f64({7.5, -7.5}, {2}), tensor::scalar<double>(2.0)}), {2},
               std::vector<double>{1.5, -1.5});
  const int32_t min = std::numeric_limits<int32_t>::min();
  check_tensor(run1("TruncateDiv", {tensor::scalar<int32_t>(min), tensor::scalar<int32_t>(-1)}),
               {}, std::vector<int32_t>{min});
  check_tensor(run1("Mod", {tensor::scalar<int32_t>(min), tensor::scalar<int32_t>(-1)}), {},
               std::vector<int32_t>{0});
}

TEST_CASE("Div divides floats and truncates integers") {
  check_tensor(run1("Div", {f64({7, -7}, {2}), tensor::scalar<double>(2.0)}), {2},
               std::vector<double>{3.5, -3.5});
  check_tensor(run1("Div", {i64({7, -7, 7}), i64({2, 2, -2})}), {3},
               std::vector<int64_t>{3, -3, -3});
  check_tensor(run1("Div", {tensor::from_vector<uint8_t>({200, 9}, {2}), tensor::scalar<uint8_t>(4)}),
               {2}, std::vector<uint8_t>{50, 2});
}

TEST_CASE("an integer divisor of zero fails the step, naming the node") {
  const auto x = tensor::from_vector<int32_t>({1, 2}, {2});
  const auto y = tensor::from_vector<int32_t>({1, 0}, {2});
  for (const char* op : {"Div", "Mod", "TruncateMod", "TruncateDiv"}) {
    INFO(op);
    check_error(run_kernel(op, {x, y}), "Integer division by zero (y[1])");
    check_error(run_kernel(op, {x, y}), std::string("test_") + op);
  }
}

TEST_CASE("SquaredDifference, Atan2, DivNoNan, Xlogy and Xdivy broadcast") {
  const auto a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const auto b = f64({0.5, 0, 2}, {3});
  check_tensor(run1("SquaredDifference", {a, b}), {2, 3},
               std::vector<double>{0.25, 4, 1, 12.25, 25, 16});
  check_tensor(run1("DivNoNan", {a, b}), {2, 3}, std::vector<double>{2, 0, 1.5, 8, 0, 3});
  check_tensor(run1("Xdivy", {f64({0, 3}, {2}), f64({0, 2}, {2})}), {2},
               std::vector<double>{0, 1.5});
  check_tensor(run1("Xlogy", {f64({0, 2, 0}, {3}), f64({0, std::exp(1.5), -1}, {3})}), {3},
               std::vector<double>{0, 3, 0}, 1e-12);
  check_tensor(run1("Atan2", {f64({1, -1, 1}, {3}), f64({1, 1, -1}, {3})}), {3},
               std::vector<double>{M_PI / 4, -M_PI / 4, 3 * M_PI / 4}, 1e-12);
  check_tensor(run1("SquaredDifference", {tensor::scalar<int32_t>(3),
                                          tensor::from_vector<int32_t>({1, 5}, {2, 1})}),
               {2, 1}, std::vector<int32_t>{4, 4});
}

TEST_CASE("NotEqual, GreaterEqual, LessEqual, LogicalAnd and LogicalOr") {
  const auto x = tensor::from_vector<int32_t>({1, 2, 3}, {3});
  const auto y = tensor::scalar<int32_t>(2);
  check_tensor(run1("NotEqual", {x, y}), {3}, std::vector<bool>{true, false, true});
  check_tensor(run1("GreaterEqual", {x, y}), {3}, std::vector<bool>{false, true, true});
  check_tensor(run1("LessEqual", {x, y}), {3}, std::vector<bool>{true, true, false});
  const auto p = tensor::from_vector<bool>({true, false}, {2, 1});
  const auto q = tensor::from_vector<bool>({true, false}, {1, 2});
  check_tensor(run1("LogicalAnd", {p, q}), {2, 2}, std::vector<bool>{true, false, false, false});
  check_tensor(run1("LogicalOr", {p, q}), {2, 2}, std::vector<bool>{true, true, true, false});
  // Shapes that cannot broadcast are simply "not equal" when asked.
  check_tensor(run1("NotEqual", {x, tensor::from_vector<int32_t>({1, 2}, {2})},
                    {{"incompatible_shape_error", false}}),
               {}, std::vector<bool>{true});
}

TEST_CASE("shapes that cannot broadcast fail, naming the node and both shapes") {
  const auto a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const auto b = f64({1, 2}, {2});
  for (const char* op : {"SquaredDifference", "Xlogy", "Atan2", "GreaterEqual"}) {
    INFO(op);
    auto r = run_kernel(op, {a, b}, {}, {.infer_shapes = false});
    check_error(r, std::string("test_") + op);
    check_error(r, "[2,3]");
  }
  // At graph construction, the shape function names the node.
  auto root = scope::new_root();
  ops::squared_difference(root.with_op_name("sqdiff"), ops::constant(root, a),
                          ops::constant(root, b));
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("sqdiff") != std::string::npos);
}

TEST_CASE("a wrong dtype is an error naming the node") {
  check_error(run_kernel("LogicalAnd", {tensor::scalar<int32_t>(1), tensor::scalar<int32_t>(0)}),
              "test_LogicalAnd");
  check_error(run_kernel("Xlogy", {tensor::scalar<int32_t>(1), tensor::scalar<int32_t>(1)}),
              "test_Xlogy");
  auto root = scope::new_root();
  ops::atan2(root.with_op_name("angle"), ops::constant(root, 1.0f), ops::constant(root, 1.0));
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("angle") != std::string::npos);
}

TEST_CASE("ClipByValue with scalar and elementwise bounds") {
  const auto t = f64({-3, -1, 0, 2, 5, 9}, {2, 3});
  check_tensor(run1("ClipByValue", {t, tensor::scalar<double>(-1.5), tensor::scalar<double>(4)}),
               {2, 3}, std::vector<double>{-1.5, -1, 0, 2, 4, 4});
  const auto lo = f64({0, 0, 1, 1, 6, 0}, {2, 3});
  check_tensor(run1("ClipByValue", {t, lo, tensor::scalar<double>(8)}), {2, 3},
               std::vector<double>{0, 0, 1, 2, 6, 8});
  check_tensor(run1("ClipByValue", {tensor::from_vector<int32_t>({-5, 5}, {2}),
                                    tensor::scalar<int32_t>(0), tensor::scalar<int32_t>(3)}),
               {2}, std::vector<int32_t>{0, 3});
}

TEST_CASE("ClipByValue refuses a bound that is neither a scalar nor shaped like t") {
  const auto t = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  const auto bad = f64({0, 1, 2}, {3});
  auto r = run_kernel("ClipByValue", {t, bad, tensor::scalar<double>(1)}, {},
                      {.infer_shapes = false});
  check_error(r, "clip_value_min of shape [3] must be a scalar or have the shape of t [2,3]");
  check_error(r, "test_ClipByValue");
  auto root = scope::new_root();
  ops::clip_by_value(root.with_op_name("clip"), ops::constant(root, t),
                     ops::constant(root, 0.0), ops::constant(root, bad));
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("clip") != std::string::npos);
  CHECK(root.get_status().message().find("clip_value_max") != std::string::npos);
}
