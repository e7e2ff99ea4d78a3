// Gradients of the unary math ops and the activations added with them, checked against
// central differences (first and second order).
#include <doctest/doctest.h>

#include <functional>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_unary_ops.hpp"
#include "graph/client/ops/nn_activation_ops.hpp"
#include "test_util/gradient_checker.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;

namespace {

using unary_fn = std::function<output(const scope&, const output&)>;

tensor f64(const std::vector<double>& v, const tensor_shape& shape) {
  return tensor::from_vector<double>(v, shape);
}

void check_unary(const unary_fn& f, const std::vector<double>& values) {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  check_gradient(root, x, f(root, x), f64(values, {2, static_cast<int64_t>(values.size()) / 2}));
}

// Kept away from 0 and from 6 (the kinks of the piecewise activations).
const std::vector<double> any = {-1.5, -0.4, 0.3, 0.9, 1.7, 2.2};
const std::vector<double> inside_unit = {-0.8, -0.35, 0.1, 0.45, 0.6, 0.9};
const std::vector<double> positive = {0.3, 0.6, 1.1, 1.9, 2.5, 4.0};
const std::vector<double> above_one = {1.2, 1.5, 2.1, 2.9, 3.5, 5.0};

}  // namespace

TEST_CASE("unary math functions") {
  const struct {
    const char* name;
    unary_fn f;
    const std::vector<double>& at;
  } cases[] = {
      {"Log1p", [](const scope& s, const output& x) { return ops::log1p(s, x); }, positive},
      {"Expm1", [](const scope& s, const output& x) { return ops::expm1(s, x); }, any},
      {"Sin", [](const scope& s, const output& x) { return ops::sin(s, x); }, any},
      {"Cos", [](const scope& s, const output& x) { return ops::cos(s, x); }, any},
      {"Tan", [](const scope& s, const output& x) { return ops::tan(s, x); }, inside_unit},
      {"Asin", [](const scope& s, const output& x) { return ops::asin(s, x); }, inside_unit},
      {"Acos", [](const scope& s, const output& x) { return ops::acos(s, x); }, inside_unit},
      {"Atan", [](const scope& s, const output& x) { return ops::atan(s, x); }, any},
      {"Asinh", [](const scope& s, const output& x) { return ops::asinh(s, x); }, any},
      {"Acosh", [](const scope& s, const output& x) { return ops::acosh(s, x); }, above_one},
      {"Atanh", [](const scope& s, const output& x) { return ops::atanh(s, x); }, inside_unit},
      {"Sinh", [](const scope& s, const output& x) { return ops::sinh(s, x); }, any},
      {"Cosh", [](const scope& s, const output& x) { return ops::cosh(s, x); }, any},
      {"Erf", [](const scope& s, const output& x) { return ops::erf(s, x); }, any},
      {"Erfc", [](const scope& s, const output& x) { return ops::erfc(s, x); }, any},
      {"Lgamma", [](const scope& s, const output& x) { return ops::lgamma(s, x); }, positive},
      {"Digamma", [](const scope& s, const output& x) { return ops::digamma(s, x); }, positive},
      {"Inv", [](const scope& s, const output& x) { return ops::inv(s, x); }, positive},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    check_unary(c.f, c.at);
  }
}

TEST_CASE("Polygamma: through x, not through the order") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto a = ops::constant(root, f64({1, 2, 0}, {3}));
  check_gradient(root, x, ops::polygamma(root, a, x), f64({0.7, 1.3, 2.1}, {3}));
}

TEST_CASE("second order: RsqrtGrad, SqrtGrad, ReciprocalGrad and InvGrad in both inputs") {
  auto root = scope::new_root();
  auto y = ops::placeholder(root, dtype::float64);
  auto dy = ops::placeholder(root, dtype::float64);
  const tensor yv = f64({0.5, 1.5, 2.0, 0.8}, {2, 2}), dyv = f64({0.3, -1.2, 0.7, 2.0}, {2, 2});
  check_gradients(root, {y, dy}, ops::rsqrt_grad(root, y, dy), {yv, dyv});
  check_gradients(root, {y, dy}, ops::sqrt_grad(root, y, dy), {yv, dyv});
  check_gradients(root, {y, dy}, ops::reciprocal_grad(root, y, dy), {yv, dyv});
  check_gradients(root, {y, dy}, ops::inv_grad(root, y, dy), {yv, dyv});
}

TEST_CASE("activations") {
  const std::vector<double> around = {-1.5, -0.4, 0.3, 0.9, 5.2, 6.7};
  const struct {
    const char* name;
    unary_fn f;
  } cases[] = {
      {"Relu6", [](const scope& s, const output& x) { return ops::relu6(s, x); }},
      {"Elu", [](const scope& s, const output& x) { return ops::elu(s, x); }},
      {"Selu", [](const scope& s, const output& x) { return ops::selu(s, x); }},
      {"Softplus", [](const scope& s, const output& x) { return ops::softplus(s, x); }},
      {"Softsign", [](const scope& s, const output& x) { return ops::softsign(s, x); }},
      {"LeakyRelu", [](const scope& s, const output& x) { return ops::leaky_relu(s, x); }},
      {"LeakyRelu alpha 0.3",
       [](const scope& s, const output& x) { return ops::leaky_relu(s, x, {.alpha = 0.3f}); }},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    check_unary(c.f, around);
  }
}

TEST_CASE("second order through the activations' *Grad ops") {
  auto root = scope::new_root();
  auto g = ops::placeholder(root, dtype::float64);
  auto f = ops::placeholder(root, dtype::float64);
  const tensor gv = f64({0.3, -1.2, 0.7, 2.0, 0.5, -0.4}, {2, 3});
  const tensor fv = f64({-1.5, -0.4, 0.3, 0.9, 5.2, 6.7}, {2, 3});
  // Elu and Selu's grads take outputs: negative ones lie in (-1, 0) and (-1.76, 0).
  const tensor ov = f64({-0.7, -0.2, 0.3, 0.9, 1.2, 2.5}, {2, 3});
  check_gradients(root, {g, f}, ops::relu6_grad(root, g, f), {gv, fv});
  check_gradients(root, {g, f}, ops::leaky_relu_grad(root, g, f, {.alpha = 0.25f}), {gv, fv});
  check_gradients(root, {g, f}, ops::softplus_grad(root, g, f), {gv, fv});
  check_gradients(root, {g, f}, ops::elu_grad(root, g, f), {gv, ov});
  check_gradients(root, {g, f}, ops::selu_grad(root, g, f), {gv, ov});
}
