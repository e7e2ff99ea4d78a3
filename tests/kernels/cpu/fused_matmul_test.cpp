// _FusedMatMul: MatMul, then BiasAdd, then an activation, applied by the product per output
// block.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

using attrs = std::map<std::string, attr_value>;
using strings = std::vector<std::string>;

tensor run(const std::string& op, const std::vector<tensor>& inputs, attrs a) {
  auto r = run_kernel(op, inputs, std::move(a));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

template <class T>
tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(std::sin(0.23 * i + phase));
  return tensor::from_vector<T>(v, shape);
}

// MatMul, then BiasAdd, then the activation, each its own kernel.
tensor unfused(const tensor& a, const tensor& b, const tensor& bias, bool ta, bool tb,
               const std::string& act) {
  tensor y = run("BiasAdd", {run("MatMul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}}),
                             bias},
                 {});
  return act.empty() ? y : run(act, {y}, {});
}

}  // namespace

TEST_CASE("_FusedMatMul by hand") {
  // [[1, 2], [3, 4]] x [[1, -1], [1, 1]] = [[3, 1], [7, 1]]; bias (-5, -2).
  const tensor a = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  const tensor b = tensor::from_vector<float>({1, -1, 1, 1}, {2, 2});
  const tensor bias = tensor::from_vector<float>({-5, -2});
  check_tensor(run("_FusedMatMul", {a, b, bias}, {{"fused_ops", strings{"BiasAdd"}}}), {2, 2},
               std::vector<float>{-2, -1, 2, -1});
  check_tensor(run("_FusedMatMul", {a, b, bias}, {{"fused_ops", strings{"BiasAdd", "Relu"}}}),
               {2, 2}, std::vector<float>{0, 0, 2, 0});
  check_tensor(run("_FusedMatMul", {a, b, bias},
                   {{"fused_ops", strings{"BiasAdd", "LeakyRelu"}}, {"leakyrelu_alpha", 0.1f}}),
               {2, 2}, std::vector<float>{-0.2f, -0.1f, 2, -0.1f});
  // transpose_b: b^T = [[1, 1], [-1, 1]]: [[-1, 3], [-1, 7]] + bias.
  check_tensor(run("_FusedMatMul", {a, b, bias},
                   {{"fused_ops", strings{"BiasAdd"}}, {"transpose_b", true}}),
               {2, 2}, std::vector<float>{-6, 1, -6, 5});
}

TEST_CASE("_FusedMatMul equals MatMul + BiasAdd + activation, every transpose and size") {
  // Small products run on the calling thread, large ones on the pool (and through Eigen's
  // block loops); one-row and one-column products take its matrix-vector path, and a long
  // inner dimension its split over k.
  const std::vector<std::array<int64_t, 3>> sizes{
      {3, 5, 4}, {1, 64, 33}, {70, 50, 1}, {4, 8192, 3}, {130, 257, 96}, {256, 300, 200}};
  for (const std::array<int64_t, 3>& size : sizes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const char* act : {"", "Relu", "Relu6", "Elu", "Sigmoid", "Tanh"}) {
          const int64_t m = size[0], k = size[1], n = size[2];
          CAPTURE(m);
          CAPTURE(k);
          CAPTURE(n);
          CAPTURE(ta);
          CAPTURE(tb);
          CAPTURE(act);
          const tensor a = wavy<float>(ta ? tensor_shape{k, m} : tensor_shape{m, k}, 0.4);
          const tensor b = wavy<float>(tb ? tensor_shape{n, k} : tensor_shape{k, n}, 1.7);
          const tensor bias = wavy<float>({n}, 3.1);
          strings ops{"BiasAdd"};
          if (*act) ops.push_back(act);
          const tensor fused =
              run("_FusedMatMul", {a, b, bias},
                  {{"fused_ops", ops}, {"transpose_a", ta}, {"transpose_b", tb}});
          check_tensor(fused, unfused(a, b, bias, ta, tb, act), 1e-4);
        }
  // float64, with Prelu's per-column alpha.
  const tensor a = wavy<double>({6, 9}, 0.2), b = wavy<double>({9, 5}, 0.9);
  const tensor bias = wavy<double>({5}, 2.2), alpha = wavy<double>({5}, 0.5);
  const tensor y = run("BiasAdd", {run("MatMul", {a, b}, {}), bias}, {});
  std::vector<double> expected(30);
  for (int i = 0; i < 30; ++i) {
    const double v = y.data<double>()[i];
    expected[i] = v > 0 ? v : alpha.data<double>()[i % 5] * v;
  }
  check_tensor(
      run("_FusedMatMul", {a, b, bias, alpha}, {{"fused_ops", strings{"BiasAdd", "Prelu"}}}),
      {6, 5}, expected, 1e-12);
  // An empty inner dimension: the bias and activation of zeros.
  check_tensor(run("_FusedMatMul",
                   {tensor(dtype::float32, {2, 0}), tensor(dtype::float32, {0, 2}),
                    tensor::from_vector<float>({-1, 1})},
                   {{"fused_ops", strings{"BiasAdd", "Relu"}}}),
               {2, 2}, std::vector<float>{0, 1, 0, 1});
}

TEST_CASE("_FusedMatMul refuses FusedBatchNorm and a bias of the wrong length") {
  const tensor a = wavy<float>({2, 3}, 0), b = wavy<float>({3, 4}, 1);
  const tensor four = tensor::from_vector<float>({1, 2, 3, 4});
  check_error(run_kernel("_FusedMatMul", {a, b, four, four, four, four},
                         {{"fused_ops", strings{"FusedBatchNorm"}}}),
              "node 'test__FusedMatMul' (_FusedMatMul): fused_ops [FusedBatchNorm] is not "
              "supported by _FusedMatMul: it fuses [BiasAdd], optionally followed by one of");
  check_error(run_kernel("_FusedMatMul", {a, b, tensor::from_vector<float>({1, 2})},
                         {{"fused_ops", strings{"BiasAdd"}}}),
              "bias (arg 0 of fused_ops [BiasAdd]) must be a vector of the output's 4 channels, "
              "got shape [2]");
}
