// MaxPool3D, AvgPool3D and their gradient kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using attr_map = std::map<std::string, attr_value>;

namespace {
attr_map pool(std::vector<int> k, std::vector<int> s, const char* padding) {
  return {{"ksize", std::move(k)}, {"strides", std::move(s)}, {"padding", padding}};
}
}  // namespace

TEST_CASE("MaxPool3D and AvgPool3D over 2x2x2 windows") {
  // 0..15 in [1, 2, 2, 4, 1]: windows over (d, h) whole and columns {0,1}, {2,3}.
  auto x = iota<float>({1, 2, 2, 4, 1});
  const attr_map a = pool({1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
  auto mx = run_kernel("MaxPool3D", {x}, a);
  REQUIRE(mx.ok());
  check_tensor<float>(mx->at(0), {1, 1, 1, 2, 1}, {13, 15});
  auto av = run_kernel("AvgPool3D", {x}, a);
  REQUIRE(av.ok());
  // (0+1+4+5+8+9+12+13)/8 = 6.5, and 8.5.
  check_tensor<float>(av->at(0), {1, 1, 1, 2, 1}, {6.5f, 8.5f});
}

TEST_CASE("AvgPool3D with SAME padding averages over the elements inside") {
  // [1, 1, 1, 3, 2]: windows of 2 columns, stride 2: {0, 1}, {2} (padding ignored).
  auto x = iota<double>({1, 1, 1, 3, 2});
  auto out = run_kernel("AvgPool3D", {x}, pool({1, 1, 1, 2, 1}, {1, 1, 1, 2, 1}, "SAME"));
  REQUIRE(out.ok());
  check_tensor<double>(out->at(0), {1, 1, 1, 2, 2}, {1, 2, 4, 5});
  auto grad = run_kernel("AvgPool3DGrad", {tensor::from_vector<int32_t>({1, 1, 1, 3, 2}),
                                           tensor::from_vector<double>({2, 4, 6, 8}, {1, 1, 1, 2, 2})},
                         pool({1, 1, 1, 2, 1}, {1, 1, 1, 2, 1}, "SAME"));
  REQUIRE(grad.ok());
  check_tensor<double>(grad->at(0), {1, 1, 1, 3, 2}, {1, 2, 1, 2, 6, 8});
}

TEST_CASE("MaxPool3DGrad routes to the maxima; MaxPool3DGradGrad gathers from them") {
  auto x = tensor::from_vector<float>({1, 5, 3, 5, 2, 0, 7, 1}, {1, 2, 2, 2, 1});
  const attr_map a = pool({1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
  auto y = tensor::from_vector<float>({7}, {1, 1, 1, 1, 1});
  auto g = run_kernel("MaxPool3DGrad", {x, y, tensor::from_vector<float>({10}, {1, 1, 1, 1, 1})}, a);
  REQUIRE(g.ok());
  check_tensor<float>(g->at(0), {1, 2, 2, 2, 1}, {0, 0, 0, 0, 0, 0, 10, 0});
  auto gg = run_kernel("MaxPool3DGradGrad", {x, y, iota<float>({1, 2, 2, 2, 1})}, a);
  REQUIRE(gg.ok());
  check_tensor<float>(gg->at(0), {1, 1, 1, 1, 1}, {6});
}

TEST_CASE("3-D pools reject bad ranks, windows, formats and shapes") {
  auto x = iota<float>({1, 2, 2, 2, 1});
  check_error(run_kernel("MaxPool3D", {iota<float>({2, 2, 2, 1})},
                         pool({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID")),
              "input must be 5-dimensional");
  check_error(run_kernel("MaxPool3D", {x}, pool({1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID")),
              "ksize must have 5 entries");
  check_error(run_kernel("AvgPool3D", {x}, pool({2, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID")),
              "ksize in the batch and channel dimensions must be 1");
  check_error(run_kernel("AvgPool3D", {x}, pool({1, 4, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID")),
              "computed output size would be negative");
  check_error(run_kernel("AvgPool3D", {x}, pool({1, 1, 1, 1, 1}, {1, 0, 1, 1, 1}, "VALID")),
              "strides must be positive");
  attr_map cf = pool({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID");
  cf["data_format"] = "NCDHW";
  auto r = run_kernel("MaxPool3D", {x}, cf);
  check_error(r, "supports only data_format NDHWC");
  CHECK(r.get_status().code() == error_code::unimplemented);
  check_error(run_kernel_unchecked("MaxPool3DGrad",
                                   {x, iota<float>({1, 1, 1, 1, 1}), iota<float>({1, 1, 1, 2, 1})},
                                   pool({1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID")),
              "grad has shape [1,1,1,2,1] but the input and window give [1,1,1,1,1]");
}
