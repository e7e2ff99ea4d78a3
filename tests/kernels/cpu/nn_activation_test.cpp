// Relu, Sigmoid, Tanh and their gradient kernels.
#include <cmath>
#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor run(const std::string& op, const std::vector<tensor>& inputs) {
  auto r = run_kernel(op, inputs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
tensor t_(const std::vector<T>& v) {
  return tensor::from_vector<T>(v);
}

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
const double ln3 = std::log(3.0);

}  // namespace

TEST_CASE("Relu zeroes negatives for every registered dtype and keeps NaN") {
  // Nine elements: the vectorized head and the scalar tail both see each case.
  const tensor f = run("Relu", {t_<float>({-2, -0.5f, 0, 0.5f, 3, k_nan, -1e30f, 7, -0.0f})});
  check_tensor(f.slice_dim0(0, 5), {5}, std::vector<float>{0, 0, 0, 0.5f, 3});
  CHECK(std::isnan(f.data<float>()[5]));
  check_tensor(f.slice_dim0(6, 9), {3}, std::vector<float>{0, 7, 0});
  check_tensor(run("Relu", {tensor::from_vector<double>({-1, 2.5, -3, 4}, {2, 2})}), {2, 2},
               std::vector<double>{0, 2.5, 0, 4});
  check_tensor(run("Relu", {t_<int32_t>({-3, 4, 0, -7, 9})}), {5},
               std::vector<int32_t>{0, 4, 0, 0, 9});
  check_tensor(run("Relu", {t_<int64_t>({-(int64_t{1} << 40), int64_t{1} << 40})}), {2},
               std::vector<int64_t>{0, int64_t{1} << 40});
  check_tensor(run("Relu", {tensor::scalar<float>(-1)}), {}, std::vector<float>{0});
  check_tensor(run("Relu", {tensor(dtype::float32, {0, 3})}), {0, 3}, std::vector<float>{});
}

TEST_CASE("Relu over the intra-op pool: every element of a large input") {
  const tensor x = iota<float>({300, 200}, -30000.0f);  // -30000 ... 29999
  const tensor y = run("Relu", {x});
  const float* p = y.data<float>();
  for (int64_t i = 0; i < x.num_elements(); ++i)
    if (p[i] != std::max(0.0f, static_cast<float>(i) - 30000.0f)) {
      FAIL("element ", i, " is ", p[i]);
    }
}

TEST_CASE("Relu has no uint8 kernel: the lookup names the dtype") {
  check_error(run_kernel("Relu", {t_<uint8_t>({1, 2})}), "uint8");
}

TEST_CASE("ReluGrad passes gradients where the features are positive") {
  check_tensor(run("ReluGrad", {t_<float>({1, 2, 3, 4, 5}), t_<float>({-1, 0, 0.5f, 2, -0.0f})}),
               {5}, std::vector<float>{0, 0, 3, 4, 0});
  check_tensor(run("ReluGrad", {tensor::from_vector<double>({1, 2, 3, 4}, {2, 2}),
                                tensor::from_vector<double>({1, -1, -1, 1}, {2, 2})}),
               {2, 2}, std::vector<double>{1, 0, 0, 4});
  check_tensor(run("ReluGrad", {t_<int32_t>({5, 6}), t_<int32_t>({1, -1})}), {2},
               std::vector<int32_t>{5, 0});
  check_tensor(run("ReluGrad", {t_<int64_t>({5, 6}), t_<int64_t>({0, 3})}), {2},
               std::vector<int64_t>{0, 6});
}

TEST_CASE("Sigmoid and SigmoidGrad") {
  // sigmoid(ln 3) = 3/4, sigmoid(-ln 3) = 1/4.
  const std::vector<float> x = {0, static_cast<float>(ln3), static_cast<float>(-ln3), 100, -100};
  check_tensor(run("Sigmoid", {t_<float>(x)}), {5}, std::vector<float>{0.5f, 0.75f, 0.25f, 1, 0});
  check_tensor(run("Sigmoid", {t_<double>({0, ln3, -ln3, 800, -800})}), {5},
               std::vector<double>{0.5, 0.75, 0.25, 1, 0}, 1e-12);
  // dy * y * (1 - y): 2 * 0.5 * 0.5 and 4 * 0.25 * 0.75.
  check_tensor(run("SigmoidGrad", {t_<float>({0.5f, 0.25f}), t_<float>({2, 4})}), {2},
               std::vector<float>{0.5f, 0.75f});
  check_tensor(run("SigmoidGrad", {t_<double>({0.5, 1, 0}), t_<double>({-2, 3, 3})}), {3},
               std::vector<double>{-0.5, 0, 0}, 1e-12);
}

TEST_CASE("Tanh and TanhGrad") {
  // tanh(ln 2) = (2 - 1/2) / (2 + 1/2) = 0.6.
  const double ln2 = std::log(2.0);
  check_tensor(run("Tanh", {t_<float>({0, static_cast<float>(ln2), static_cast<float>(-ln2), 50,
                                       -50})}),
               {5}, std::vector<float>{0, 0.6f, -0.6f, 1, -1});
  check_tensor(run("Tanh", {t_<double>({0, ln2, -ln2, 400, -400})}), {5},
               std::vector<double>{0, 0.6, -0.6, 1, -1}, 1e-12);
  // dy * (1 - y^2): 2 * 0.64 and 3 * 0.75.
  check_tensor(run("TanhGrad", {t_<float>({0.6f, -0.5f}), t_<float>({2, 3})}), {2},
               std::vector<float>{1.28f, 2.25f});
  check_tensor(run("TanhGrad", {t_<double>({1, 0}), t_<double>({5, -5})}), {2},
               std::vector<double>{0, -5}, 1e-12);
}

TEST_CASE("the gradient kernels refuse inputs of different shapes, naming both") {
  check_error(run_kernel("ReluGrad", {t_<float>({1, 2}), t_<float>({1, 2, 3})}),
              "inputs must have one shape");
  check_error(run_kernel_unchecked("ReluGrad", {t_<float>({1, 2}), t_<float>({1, 2, 3})}),
              "gradients of shape [2] and features of shape [3] must have the same shape");
  check_error(run_kernel_unchecked("SigmoidGrad", {t_<float>({1, 2}), t_<float>({1})}),
              "y of shape [2] and dy of shape [1] must have the same shape");
  check_error(run_kernel_unchecked("TanhGrad", {tensor::from_vector<double>({1, 2}, {1, 2}),
                                                t_<double>({1, 2})}),
              "y of shape [1,2] and dy of shape [2] must have the same shape");
}

TEST_CASE("Sigmoid and Tanh accept only floating point") {
  check_error(run_kernel("Sigmoid", {t_<int32_t>({1})}), "int32");
  check_error(run_kernel("Tanh", {t_<int64_t>({1})}), "int64");
}
