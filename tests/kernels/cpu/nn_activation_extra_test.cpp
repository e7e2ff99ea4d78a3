// Relu6, Elu, Selu, Softplus, Softsign and LeakyRelu and their *Grad ops: TF's formulas.
#include <doctest/doctest.h>

#include <cmath>

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

const double scale = 1.0507009873554804934193349852946;
const double alpha = 1.6732632423543772848170429916717;

}  // namespace

TEST_CASE("activations forward") {
  const auto x = tensor::from_vector<double>({-2.0, -0.5, 0.0, 0.5, 7.0}, {5});
  check_tensor(run1("Relu6", {x}), {5}, std::vector<double>{0, 0, 0, 0.5, 6});
  check_tensor(run1("Relu6", {tensor::from_vector<int32_t>({-1, 3, 9}, {3})}), {3},
               std::vector<int32_t>{0, 3, 6});
  check_tensor(run1("Elu", {x}), {5},
               std::vector<double>{std::expm1(-2.0), std::expm1(-0.5), 0, 0.5, 7});
  check_tensor(run1("Selu", {x}), {5},
               std::vector<double>{scale * alpha * std::expm1(-2.0),
                                   scale * alpha * std::expm1(-0.5), 0, scale * 0.5,
                                   scale * 7});
  std::vector<double> sp;
  for (double v : {-2.0, -0.5, 0.0, 0.5, 7.0}) sp.push_back(std::log1p(std::exp(v)));
  check_tensor(run1("Softplus", {x}), {5}, sp, 1e-12);
  check_tensor(run1("Softsign", {x}), {5},
               std::vector<double>{-2.0 / 3, -0.5 / 1.5, 0, 0.5 / 1.5, 7.0 / 8});
  check_tensor(run1("LeakyRelu", {x}), {5}, std::vector<double>{-0.4, -0.1, 0, 0.5, 7});
  check_tensor(run1("LeakyRelu", {x}, {{"alpha", 0.5f}}), {5},
               std::vector<double>{-1.0, -0.25, 0, 0.5, 7});
}

TEST_CASE("Softplus neither overflows nor loses tiny values") {
  const auto x = tensor::from_vector<float>({100.0f, -100.0f}, {2});
  check_tensor(run1("Softplus", {x}), {2}, std::vector<float>{100.0f, std::exp(-100.0f)});
}

TEST_CASE("activation gradients") {
  const auto g = tensor::from_vector<double>({1.0, 2.0, 3.0, 4.0}, {4});
  const auto f = tensor::from_vector<double>({-1.0, 0.5, 6.0, 3.0}, {4});
  check_tensor(run1("Relu6Grad", {g, f}), {4}, std::vector<double>{0, 2, 0, 4});
  check_tensor(run1("LeakyReluGrad", {g, f}, {{"alpha", 0.1f}}), {4},
               std::vector<double>{0.1, 2, 3, 4}, 1e-7);
  // Elu and Selu take the forward outputs.
  const auto a = tensor::from_vector<double>({-0.5, 0.5, 2.0, -0.1}, {4});
  check_tensor(run1("EluGrad", {g, a}), {4}, std::vector<double>{0.5, 2, 3, 3.6});
  check_tensor(run1("SeluGrad", {g, a}), {4},
               std::vector<double>{1.0 * (-0.5 + scale * alpha), 2 * scale, 3 * scale,
                                   4 * (-0.1 + scale * alpha)});
  std::vector<double> spg, ssg;
  for (int i = 0; i < 4; ++i) {
    const double gi = g.data<double>()[i], fi = f.data<double>()[i];
    spg.push_back(gi / (1 + std::exp(-fi)));
    ssg.push_back(gi / ((1 + std::abs(fi)) * (1 + std::abs(fi))));
  }
  check_tensor(run1("SoftplusGrad", {g, f}), {4}, spg, 1e-12);
  check_tensor(run1("SoftsignGrad", {g, f}), {4}, ssg, 1e-12);
}

TEST_CASE("gradient helpers refuse inputs of different shapes, naming the node") {
  const auto g = tensor::from_vector<double>({1.0, 2.0}, {2});
  const auto f = tensor::from_vector<double>({1.0, 2.0, 3.0}, {3});
  check_error(run_kernel("EluGrad", {g, f}), "test_EluGrad");
  check_error(run_kernel("Relu6Grad", {g, f}, {}, {.infer_shapes = false}),
              "gradients of shape [2] and features of shape [3] must have the same shape");
  check_error(run_kernel("Selu", {tensor::scalar<int32_t>(1)}), "test_Selu");
}
