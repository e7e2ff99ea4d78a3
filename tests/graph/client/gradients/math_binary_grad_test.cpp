// Gradients of the broadcasting binary ops added with math_binary_ops.hpp, FloorMod's, and
// ClipByValue's, checked against central differences.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_binary_ops.hpp"
#include "graph/client/ops/math_clip_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;

namespace {

using binary_fn = std::function<output(const scope&, const output&, const output&)>;

tensor f64(const std::vector<double>& v, const tensor_shape& shape) {
  return tensor::from_vector<double>(v, shape);
}

void check_binary(const binary_fn& f, const tensor& x, const tensor& y, bool known_shapes) {
  auto root = scope::new_root();
  auto shape_of = [&](const tensor& t) {
    return known_shapes ? partial_shape(t.shape()) : partial_shape::unknown();
  };
  auto px = ops::placeholder(root.with_op_name("x"), x.type(), {.shape = shape_of(x)});
  auto py = ops::placeholder(root.with_op_name("y"), y.type(), {.shape = shape_of(y)});
  check_gradients(root, {px, py}, f(root, px, py), {x, y});
}

// Positive, distinct values away from the ops' kinks (mod's jumps lie at multiples of y).
void check_broadcasts(const binary_fn& f) {
  const tensor a23 = f64({0.5, 1.25, 2.3, 0.75, 1.5, 2.6}, {2, 3});
  const tensor b3 = f64({0.8, 1.4, 1.9}, {3});
  const tensor a21 = f64({0.7, 1.6}, {2, 1});
  const tensor b13 = f64({1.2, 0.45, 2.1}, {1, 3});
  const tensor s = tensor::scalar<double>(1.35);
  check_binary(f, a23, b3, true);
  check_binary(f, b3, a23, true);
  check_binary(f, a21, b13, true);
  check_binary(f, s, a23, true);
  check_binary(f, a23, b3, false);
}

}  // namespace

TEST_CASE("Div, SquaredDifference, Atan2, DivNoNan, Xlogy, Xdivy") {
  const struct {
    const char* name;
    binary_fn f;
  } cases[] = {
      {"Div", [](const scope& s, const output& x, const output& y) { return ops::div(s, x, y); }},
      {"SquaredDifference",
       [](const scope& s, const output& x, const output& y) { return ops::squared_difference(s, x, y); }},
      {"Atan2", [](const scope& s, const output& y, const output& x) { return ops::atan2(s, y, x); }},
      {"DivNoNan", [](const scope& s, const output& x, const output& y) { return ops::div_no_nan(s, x, y); }},
      {"Xlogy", [](const scope& s, const output& x, const output& y) { return ops::xlogy(s, x, y); }},
      {"Xdivy", [](const scope& s, const output& x, const output& y) { return ops::xdivy(s, x, y); }},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    check_broadcasts(c.f);
  }
}

TEST_CASE("Mod, TruncateMod and FloorMod away from their jumps") {
  const tensor x = f64({2.3, -2.3, 5.1, -0.4, 3.7, 1.1}, {2, 3});
  const tensor y = f64({0.9, 1.6, -2.2}, {3});
  check_binary([](const scope& s, const output& a, const output& b) { return ops::mod(s, a, b); },
               x, y, true);
  check_binary(
      [](const scope& s, const output& a, const output& b) { return ops::truncate_mod(s, a, b); },
      x, y, true);
  check_binary(
      [](const scope& s, const output& a, const output& b) { return ops::floor_mod(s, a, b); }, x,
      y, false);
}

TEST_CASE("Xlogy and DivNoNan have zero gradients where TF defines them so") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto y = ops::placeholder(root, dtype::float64);
  std::vector<output> gx, gd;
  REQUIRE(add_symbolic_gradients(root, {ops::xlogy(root, x, y)}, {x, y}, &gx).ok());
  REQUIRE(add_symbolic_gradients(root, {ops::div_no_nan(root, x, y)}, {x, y}, &gd).ok());
  session sess(root);
  auto out = sess.run({{x, f64({0, 2}, {2})}, {y, f64({0, 4}, {2})}}, {gx[0], gx[1], gd[0], gd[1]});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), tensor_shape{2}, std::vector<double>{0, std::log(4.0)});
  check_tensor(out->at(1), tensor_shape{2}, std::vector<double>{0, 0.5});
  check_tensor(out->at(2), tensor_shape{2}, std::vector<double>{0, 0.25});
  check_tensor(out->at(3), tensor_shape{2}, std::vector<double>{0, -0.125});
}

TEST_CASE("ClipByValue: to t inside the bounds, to each bound where it clipped") {
  auto root = scope::new_root();
  auto t = ops::placeholder(root, dtype::float64);
  auto lo = ops::placeholder(root, dtype::float64);
  auto hi = ops::placeholder(root, dtype::float64);
  const tensor tv = f64({-3.1, -0.5, 0.2, 1.4, 2.6, 4.3}, {2, 3});
  // Scalar bounds: each gets the sum of the gradients it clipped.
  check_gradients(root, {t, lo, hi}, ops::clip_by_value(root, t, lo, hi),
                  {tv, tensor::scalar<double>(-1.0), tensor::scalar<double>(2.0)});
  // Elementwise bounds.
  check_gradients(root, {t, lo, hi}, ops::clip_by_value(root, t, lo, hi),
                  {tv, f64({-2, 0, -1, 0, 3, 0}, {2, 3}), f64({-1, 1, 1, 1, 4, 4}, {2, 3})});
}
