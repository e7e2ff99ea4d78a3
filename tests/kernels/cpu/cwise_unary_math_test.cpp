// The unary math ops of kernels/cpu/cwise_unary_math.cpp: values against the C library,
// TF's rounding, float classification, logical not, the gradient helpers and dtype errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const std::vector<tensor>& in) {
  auto r = run_kernel(op, in);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

const std::vector<double> xs = {-0.9, -0.25, 0.0, 0.3, 0.75, 0.95};

template <class F>
std::vector<double> map(F f) {
  std::vector<double> out;
  for (double x : xs) out.push_back(f(x));
  return out;
}

}  // namespace

TEST_CASE("unary math ops match the C library on float64 and float32") {
  const tensor x = tensor::from_vector<double>(xs, {2, 3});
  const struct {
    const char* op;
    double (*f)(double);
  } cases[] = {{"Ceil", [](double v) { return std::ceil(v); }},
               {"Log1p", [](double v) { return std::log1p(v); }},
               {"Expm1", [](double v) { return std::expm1(v); }},
               {"Sin", [](double v) { return std::sin(v); }},
               {"Cos", [](double v) { return std::cos(v); }},
               {"Tan", [](double v) { return std::tan(v); }},
               {"Asin", [](double v) { return std::asin(v); }},
               {"Acos", [](double v) { return std::acos(v); }},
               {"Atan", [](double v) { return std::atan(v); }},
               {"Sinh", [](double v) { return std::sinh(v); }},
               {"Cosh", [](double v) { return std::cosh(v); }},
               {"Erf", [](double v) { return std::erf(v); }},
               {"Erfc", [](double v) { return std::erfc(v); }},
               {"Lgamma", [](double v) { return std::lgamma(v); }},
               {"Asinh", [](double v) { return std::asinh(v); }},
               {"Atanh", [](double v) { return std::atanh(v); }},
               {"Inv", [](double v) { return 1.0 / v; }}};
  for (const auto& c : cases) {
    INFO(c.op);
    check_tensor(run1(c.op, {x}), {2, 3}, map(c.f), 1e-12);
    std::vector<float> xf(xs.begin(), xs.end()), want;
    for (float v : xf) want.push_back(static_cast<float>(c.f(v)));
    check_tensor(run1(c.op, {tensor::from_vector<float>(xf, {6})}), {6}, want, 1e-5);
  }
}

TEST_CASE("Acosh on its domain, NaN below") {
  check_tensor(run1("Acosh", {tensor::from_vector<double>({1.0, 2.5, 0.5}, {3})}), {3},
               std::vector<double>{0.0, std::acosh(2.5), std::numeric_limits<double>::quiet_NaN()},
               1e-12);
}

TEST_CASE("Digamma and Polygamma") {
  // digamma(1) = -Euler's constant, digamma(0.5) = -gamma - 2 ln 2; trigamma(1) = pi^2 / 6.
  const double euler = 0.57721566490153286;
  check_tensor(run1("Digamma", {tensor::from_vector<double>({1.0, 0.5}, {2})}), {2},
               std::vector<double>{-euler, -euler - 2 * std::log(2.0)}, 1e-10);
  check_tensor(run1("Polygamma", {tensor::scalar<double>(1.0),
                                  tensor::from_vector<double>({1.0, 2.0}, {2})}),
               {2}, std::vector<double>{M_PI * M_PI / 6, M_PI * M_PI / 6 - 1}, 1e-10);
  check_tensor(run1("Polygamma", {tensor::scalar<double>(0.0), tensor::scalar<double>(1.0)}), {},
               std::vector<double>{-euler}, 1e-10);
}

TEST_CASE("Round rounds half to even, as TensorFlow; Rint likewise") {
  const auto x = tensor::from_vector<double>({0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6}, {7});
  const std::vector<double> want = {0, 2, 2, -0.0, -2, 2, -3};
  check_tensor(run1("Round", {x}), {7}, want);
  check_tensor(run1("Rint", {x}), {7}, want);
  check_tensor(run1("Round", {tensor::from_vector<int32_t>({-3, 7}, {2})}), {2},
               std::vector<int32_t>{-3, 7});
}

TEST_CASE("IsNan, IsInf and IsFinite give bools") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = tensor::from_vector<double>({1.0, nan, inf, -inf}, {4});
  check_tensor(run1("IsNan", {x}), {4}, std::vector<bool>{false, true, false, false});
  check_tensor(run1("IsInf", {x}), {4}, std::vector<bool>{false, false, true, true});
  check_tensor(run1("IsFinite", {x}), {4}, std::vector<bool>{true, false, false, false});
  check_tensor(run1("LogicalNot", {tensor::from_vector<bool>({true, false}, {2})}), {2},
               std::vector<bool>{false, true});
}

TEST_CASE("RsqrtGrad, SqrtGrad, ReciprocalGrad and InvGrad take (y, dy)") {
  const auto y = tensor::from_vector<double>({0.5, 2.0}, {2});
  const auto dy = tensor::from_vector<double>({3.0, -1.0}, {2});
  check_tensor(run1("RsqrtGrad", {y, dy}), {2}, std::vector<double>{-0.1875, 4.0});
  check_tensor(run1("SqrtGrad", {y, dy}), {2}, std::vector<double>{3.0, -0.25});
  check_tensor(run1("ReciprocalGrad", {y, dy}), {2}, std::vector<double>{-0.75, 4.0});
  check_tensor(run1("InvGrad", {y, dy}), {2}, std::vector<double>{-0.75, 4.0});
  check_error(run_kernel("RsqrtGrad", {y, tensor::from_vector<double>({1, 2, 3}, {3})},
                         {}, {.infer_shapes = false}),
              "y of shape [2] and dy of shape [3] must have the same shape");
}

TEST_CASE("a dtype the op does not take is an error naming the node") {
  check_error(run_kernel("Sin", {tensor::scalar<int32_t>(1)}), "test_Sin");
  check_error(run_kernel("IsNan", {tensor::scalar<int64_t>(1)}), "int64");
  check_error(run_kernel("LogicalNot", {tensor::scalar<float>(1)}), "test_LogicalNot");
}
