// Prelu (the TF.js converter's parametric ReLU): x > 0 ? x : alpha * x, alpha broadcast to x.
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor run(const tensor& x, const tensor& alpha) {
  auto r = run_kernel("Prelu", {x, alpha});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor x23() { return tensor::from_vector<float>({-2, 1, -4, 3, -6, 0}, {2, 3}); }

}  // namespace

TEST_CASE("Prelu with a per-channel, a scalar and a broadcast alpha") {
  check_tensor(run(x23(), tensor::from_vector<float>({0.5f, 2, 0.25f})), {2, 3},
               std::vector<float>{-1, 1, -1, 3, -12, 0});
  check_tensor(run(x23(), tensor::scalar<float>(0.1f)), {2, 3},
               std::vector<float>{-0.2f, 1, -0.4f, 3, -0.6f, 0});
  // alpha [2,1]: one slope per row, through the general broadcast walk.
  check_tensor(run(x23(), tensor::from_vector<float>({0.5f, 3}, {2, 1})), {2, 3},
               std::vector<float>{-1, 1, -2, 3, -18, 0});
  // alpha [1,1,2] against x [2,2,2]: one slope per channel again.
  check_tensor(run(tensor::from_vector<double>({-1, -1, 2, -2, -3, 3, -4, -4}, {2, 2, 2}),
                   tensor::from_vector<double>({0.5, 0.25}, {1, 1, 2})),
               {2, 2, 2}, std::vector<double>{-0.5, -0.25, 2, -0.5, -1.5, 3, -2, -1});
}

TEST_CASE("Prelu refuses an alpha that does not broadcast to x") {
  check_error(run_kernel("Prelu", {x23(), tensor::from_vector<float>({1, 2})}),
              "alpha of shape [2] must broadcast to x of shape [2,3]");
  check_error(run_kernel_unchecked("Prelu", {x23(), tensor::from_vector<float>({1, 2})}),
              "alpha of shape [2] must broadcast to x of shape [2,3]");
  // alpha may not widen x.
  check_error(run_kernel("Prelu", {tensor::from_vector<float>({1, -1}, {2, 1}),
                                   tensor::from_vector<float>({1, 2, 3})}),
              "alpha of shape [3] must broadcast to x of shape [2,1]");
}
