// FusedBatchNormV3, FusedBatchNormGradV3, LRN and LRNGrad kernels and shape functions.
#include <doctest/doctest.h>

#include <cmath>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using attr_map = std::map<std::string, attr_value>;

namespace {
tensor vecf(std::vector<float> v) { return tensor::from_vector<float>(v); }
}  // namespace

TEST_CASE("FusedBatchNormV3 in training normalizes by the batch's statistics") {
  // Channel 0 holds 1, 3 (mean 2, variance 1), channel 1 holds 2, 6 (mean 4, variance 4).
  auto x = tensor::from_vector<float>({1, 2, 3, 6}, {2, 1, 1, 2});
  auto out = run_kernel("FusedBatchNormV3",
                        {x, vecf({1, 2}), vecf({0, 1}), tensor(dtype::float32, {0}),
                         tensor(dtype::float32, {0})},
                        {{"epsilon", 0.0f}});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 1, 1, 2}, {-1, -1, 1, 3});
  check_tensor<float>(out->at(1), {2}, {2, 4});
  check_tensor<float>(out->at(2), {2}, {2, 8});  // unbiased: n / (n - 1) = 2
  check_tensor<float>(out->at(3), {2}, {2, 4});
  check_tensor<float>(out->at(4), {2}, {1, 4});  // biased, as y used
  CHECK(out->at(5).shape() == tensor_shape{0});
  // A running average with factor 0.5.
  auto avg = run_kernel("FusedBatchNormV3",
                        {x, vecf({1, 2}), vecf({0, 1}), vecf({0, 10}), vecf({2, 0})},
                        {{"epsilon", 0.0f}, {"exponential_avg_factor", 0.5f}});
  REQUIRE(avg.ok());
  check_tensor<float>(avg->at(1), {2}, {1, 7});
  check_tensor<float>(avg->at(2), {2}, {2, 4});
}

TEST_CASE("FusedBatchNormV3 in inference uses the given statistics") {
  auto x = tensor::from_vector<double>({1, 2, 3, 6}, {1, 2, 1, 2});
  auto out = run_kernel("FusedBatchNormV3",
                        {x, tensor::from_vector<double>({1, 2}), tensor::from_vector<double>({0, 1}),
                         tensor::from_vector<double>({1, 2}), tensor::from_vector<double>({4, 16})},
                        {{"epsilon", 0.0f}, {"is_training", false}});
  REQUIRE(out.ok());
  check_tensor<double>(out->at(0), {1, 2, 1, 2}, {0, 1, 1, 3});
  check_tensor<double>(out->at(1), {2}, {1, 2});
  check_tensor<double>(out->at(2), {2}, {4, 16});
}

TEST_CASE("FusedBatchNormGradV3 in training and inference") {
  auto x = tensor::from_vector<float>({1, 2, 3, 6}, {2, 1, 1, 2});
  auto dy = tensor::from_vector<float>({1, 0, 3, 2}, {2, 1, 1, 2});
  // Training, channel 0: mean 2, var 1, xhat = (-1, 1); sum dy = 4, sum dy xhat = 2;
  // dx = scale (dy - 2 - xhat) = (0, 0). Channel 1: xhat = (-1, 1), sum dy = 2,
  // sum dy xhat = 2, dx = 2 / 2 * (dy - 1 - xhat) = (0, 0).
  auto t = run_kernel("FusedBatchNormGradV3",
                      {dy, x, vecf({1, 2}), vecf({2, 4}), vecf({1, 4}), tensor(dtype::float32, {0})},
                      {{"epsilon", 0.0f}});
  REQUIRE(t.ok());
  check_tensor<float>(t->at(0), {2, 1, 1, 2}, {0, 0, 0, 0});
  check_tensor<float>(t->at(1), {2}, {2, 2});
  check_tensor<float>(t->at(2), {2}, {4, 2});
  // Inference: dx = dy * scale / sqrt(var).
  auto i = run_kernel("FusedBatchNormGradV3",
                      {dy, x, vecf({1, 2}), vecf({2, 4}), vecf({1, 4}), tensor(dtype::float32, {0})},
                      {{"epsilon", 0.0f}, {"is_training", false}});
  REQUIRE(i.ok());
  check_tensor<float>(i->at(0), {2, 1, 1, 2}, {1, 0, 3, 2});
}

TEST_CASE("FusedBatchNormV3 rejects bad shapes and data formats") {
  auto x = iota<float>({2, 1, 1, 2});
  check_error(run_kernel("FusedBatchNormV3", {x, vecf({1, 2, 3}), vecf({0, 1}), vecf({}), vecf({})}),
              "scale has 3 entries but x has 2 channels");
  check_error(run_kernel("FusedBatchNormV3", {iota<float>({2, 2}), vecf({1, 2}), vecf({0, 1}),
                                              vecf({}), vecf({})}),
              "x must be 4-dimensional for data_format NHWC");
  check_error(run_kernel("FusedBatchNormV3", {x, vecf({1, 2}), vecf({0, 1}), vecf({}), vecf({})},
                         {{"is_training", false}}),
              "mean has 0 entries but x has 2 channels");
  check_error(run_kernel_unchecked("FusedBatchNormV3",
                                   {x, vecf({1, 2}), vecf({0, 1}), vecf({}), vecf({})},
                                   {{"is_training", false}}),
              "mean must be a vector of 2 entries");
  check_error(run_kernel("FusedBatchNormV3", {x, vecf({1, 2}), vecf({0, 1}), vecf({}), vecf({})},
                         {{"data_format", "HWCN"}}),
              "invalid data_format 'HWCN'");
  auto nchw = run_kernel("FusedBatchNormV3", {x, vecf({1}), vecf({0}), vecf({}), vecf({})},
                         {{"data_format", "NCHW"}});
  check_error(nchw, "supports only channels-last data_format");
  CHECK(nchw.get_status().code() == error_code::unimplemented);
  check_error(run_kernel("FusedBatchNormGradV3", {iota<float>({1, 1, 1, 2}), x, vecf({1, 2}),
                                                  vecf({0, 0}), vecf({1, 1}), vecf({})}),
              "y_backprop has shape [1,1,1,2] but x has shape [2,1,1,2]");
}

TEST_CASE("LRN divides by the window's sum of squares") {
  auto x = tensor::from_vector<float>({1, 2, 3}, {1, 1, 1, 3});
  auto out = run_kernel("LRN", {x}, {{"depth_radius", int64_t{1}}, {"beta", 1.0f}});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {1, 1, 1, 3}, {1.0f / 6, 2.0f / 15, 3.0f / 14});
  // The defaults: radius 5 covers all three, bias 1, alpha 1, beta 0.5: norm = 15.
  auto d = run_kernel("LRN", {x});
  REQUIRE(d.ok());
  const float r = 1.0f / std::sqrt(15.0f);
  check_tensor<float>(d->at(0), {1, 1, 1, 3}, {r, 2 * r, 3 * r});
  check_error(run_kernel("LRN", {iota<float>({3, 3})}), "input 0 must have rank 4");
  check_error(run_kernel("LRN", {x}, {{"depth_radius", int64_t{-1}}}),
              "depth_radius must be non-negative");
  check_error(run_kernel("LRNGrad", {x, x, iota<float>({1, 1, 1, 2})}),
              "must have one shape");
}

TEST_CASE("FusedBatchNorm and FusedBatchNormGradV2 (older versions) have five outputs") {
  auto x = tensor::from_vector<float>({1, 2, 3, 6}, {2, 1, 1, 2});
  auto out = run_kernel("FusedBatchNorm", {x, vecf({1, 2}), vecf({0, 1}), vecf({}), vecf({})},
                        {{"epsilon", 0.0f}});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 5);
  check_tensor<float>(out->at(0), {2, 1, 1, 2}, {-1, -1, 1, 3});
  check_tensor<float>(out->at(2), {2}, {2, 8});
  auto g = run_kernel("FusedBatchNormGradV2",
                      {tensor::from_vector<float>({1, 0, 3, 2}, {2, 1, 1, 2}), x, vecf({1, 2}),
                       vecf({2, 4}), vecf({1, 4})},
                      {{"epsilon", 0.0f}});
  REQUIRE(g.ok());
  REQUIRE(g->size() == 5);
  check_tensor<float>(g->at(1), {2}, {2, 2});
  check_tensor<float>(g->at(2), {2}, {4, 2});
}
