// AvgPool and AvgPoolGrad: hand-worked windows (SAME edges divide by the elements inside),
// randomized cases against loops written here, and the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/client/ops/conv_ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/random_tensor.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::random_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

namespace {

using attr_map = std::map<std::string, attr_value>;

attr_map pool_attrs(int k, int stride, const char* padding) {
  return {{"ksize", std::vector<int>{1, k, k, 1}},
          {"strides", std::vector<int>{1, stride, stride, 1}},
          {"padding", padding}};
}

tensor avg_pool(const tensor& x, const attr_map& attrs) {
  auto r = run_kernel("AvgPool", {x}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor avg_pool_grad(const tensor_shape& xs, const tensor& dy, const attr_map& attrs) {
  auto r = run_kernel("AvgPoolGrad",
                      {vec32({int32_t(xs.dim(0)), int32_t(xs.dim(1)), int32_t(xs.dim(2)),
                              int32_t(xs.dim(3))}),
                       dy},
                      attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

// The definition: each window's mean over its elements inside the input, and the adjoint.
void check_against_loops(const tensor_shape& xs, int k, int stride, bool same) {
  CAPTURE(xs.to_string());
  CAPTURE(k);
  CAPTURE(stride);
  CAPTURE(same);
  const tensor x = random_tensor<double>(xs, 29 + xs.num_elements());
  const int64_t n = xs.dim(0), h = xs.dim(1), w = xs.dim(2), c = xs.dim(3);
  auto out = [&](int64_t in) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; };
  auto before = [&](int64_t in) {
    return same ? std::max<int64_t>((out(in) - 1) * stride + k - in, 0) / 2 : 0;
  };
  const int64_t oh = out(h), ow = out(w), ph = before(h), pw = before(w);
  const tensor dy = random_tensor<double>({n, oh, ow, c}, 31);
  std::vector<double> y(static_cast<size_t>(n * oh * ow * c)), dx(xs.num_elements());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t d = 0; d < c; ++d) {
          std::vector<int64_t> inside;
          for (int64_t a = 0; a < k; ++a)
            for (int64_t e = 0; e < k; ++e) {
              const int64_t r = i * stride - ph + a, s = j * stride - pw + e;
              if (r >= 0 && r < h && s >= 0 && s < w) inside.push_back(((b * h + r) * w + s) * c + d);
            }
          const int64_t yi = ((b * oh + i) * ow + j) * c + d;
          for (int64_t at : inside) {
            y[yi] += x.data<double>()[at] / double(inside.size());
            dx[at] += dy.data<double>()[yi] / double(inside.size());
          }
        }
  const attr_map attrs = pool_attrs(k, stride, same ? "SAME" : "VALID");
  check_tensor<double>(avg_pool(x, attrs), {n, oh, ow, c}, y, 1e-12);
  check_tensor<double>(avg_pool_grad(xs, dy, attrs), xs, dx, 1e-12);
}

}  // namespace

TEST_CASE("AvgPool with SAME padding divides each window by its elements inside the input") {
  const tensor x = iota<float>({1, 3, 3, 1}, 1);  // 1..9
  // 2x2 stride 2: windows {1,2,4,5}, {3,6}, {7,8}, {9}.
  check_tensor<float>(avg_pool(x, pool_attrs(2, 2, "SAME")), {1, 2, 2, 1}, {3, 4.5, 7.5, 9});
  check_tensor<float>(avg_pool(x, pool_attrs(2, 2, "VALID")), {1, 1, 1, 1}, {3});
  // 3x3 stride 1: corners average 4 elements, edges 6, the centre 9.
  check_tensor<float>(avg_pool(x, pool_attrs(3, 1, "SAME")), {1, 3, 3, 1},
                      {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
  // Channels pool separately.
  const tensor two = tensor::from_vector<double>({1, 10, 3, 30, 5, 50, 7, 70}, {1, 2, 2, 2});
  check_tensor<double>(avg_pool(two, pool_attrs(2, 2, "VALID")), {1, 1, 1, 2}, {4, 40});
}

TEST_CASE("AvgPoolGrad spreads each gradient evenly over its window's elements") {
  // SAME 2x2 stride 2 over 3x3, gradients 4, 6, 8, 9: the full window gives 1 to each of its
  // 4 elements, the right one 6/2 to each of 2, the bottom one 8/2, the corner 9/1.
  check_tensor<float>(avg_pool_grad({1, 3, 3, 1},
                                    tensor::from_vector<float>({4, 6, 8, 9}, {1, 2, 2, 1}),
                                    pool_attrs(2, 2, "SAME")),
                      {1, 3, 3, 1}, {1, 1, 3, 1, 1, 3, 4, 4, 9});
  // Overlapping VALID windows (2x2, stride 1) of unit gradient: a quarter per window covering
  // each element.
  check_tensor<double>(avg_pool_grad({1, 3, 3, 1}, tensor::filled<double>({1, 2, 2, 1}, 1.0),
                                     pool_attrs(2, 1, "VALID")),
                       {1, 3, 3, 1}, {0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25});
}

TEST_CASE("AvgPool and AvgPoolGrad against loops, many shapes, windows and paddings") {
  for (bool same : {true, false}) {
    check_against_loops({2, 7, 6, 3}, 2, 2, same);
    check_against_loops({3, 9, 8, 2}, 3, 2, same);
    check_against_loops({1, 5, 5, 4}, 3, 1, same);
    check_against_loops({2, 6, 7, 1}, 2, 3, same);
    check_against_loops({32, 28, 28, 8}, 3, 2, same);
  }
}

TEST_CASE("AvgPool and AvgPoolGrad of empty tensors") {
  auto r = run_kernel("AvgPool", {tensor(dtype::float64, {0, 4, 4, 3})}, pool_attrs(2, 2, "SAME"));
  REQUIRE(r.ok());
  CHECK(r->at(0).shape() == tensor_shape{0, 2, 2, 3});
  auto g = run_kernel("AvgPoolGrad", {vec32({2, 4, 4, 0}), tensor(dtype::float32, {2, 2, 2, 0})},
                      pool_attrs(2, 2, "VALID"));
  REQUIRE(g.ok());
  CHECK(g->at(0).shape() == tensor_shape{2, 4, 4, 0});
}

TEST_CASE("AvgPool and AvgPoolGrad reject bad windows, sizes and mismatched gradients") {
  check_error(run_kernel("AvgPool", {iota<float>({4, 4, 1})}, pool_attrs(2, 2, "VALID")),
              "value must be 4-dimensional, got shape [4,4,1]");
  check_error(run_kernel_unchecked("AvgPool", {iota<float>({4, 4, 1})}, pool_attrs(2, 2, "VALID")),
              "value must be 4-dimensional, got shape [4,4,1]");
  check_error(run_kernel("AvgPool", {iota<float>({1, 4, 4, 1})},
                         {{"ksize", std::vector<int>{2, 2, 2, 1}},
                          {"strides", std::vector<int>{1, 1, 1, 1}},
                          {"padding", "VALID"}}),
              "does not yet support pooling in the batch and depth dimensions");
  check_error(run_kernel("AvgPool", {iota<float>({1, 4, 4, 1})},
                         {{"ksize", std::vector<int>{1, 2, 2, 1}},
                          {"strides", std::vector<int>{1, 1, 1, 2}},
                          {"padding", "VALID"}}),
              "does not yet support pooling strides in the batch and depth dimensions: strides "
              "[1,1,1,2]");
  const attr_map attrs = pool_attrs(2, 2, "VALID");
  const tensor dy = tensor::filled<float>({1, 2, 2, 1}, 1.0f);
  check_error(run_kernel("AvgPoolGrad", {vec32({1, 6, 4, 1}), dy}, attrs),
              "grad has shape [1,2,2,1] but orig_input_shape and the window give [1,3,2,1]");
  check_error(run_kernel_unchecked("AvgPoolGrad", {vec32({1, 6, 4, 1}), dy}, attrs),
              "grad has shape [1,2,2,1] but pooling an input of shape [1,6,4,1] gives [1,3,2,1]");
  check_error(run_kernel("AvgPoolGrad", {vec32({1, 4, 4}), dy}, attrs),
              "orig_input_shape must be a vector of 4 sizes, got shape [3]");
  check_error(run_kernel_unchecked("AvgPoolGrad", {vec32({1, 4, 4}), dy}, attrs),
              "orig_input_shape must be an int32 vector of 4 sizes, got int32[3]");
  check_error(run_kernel_unchecked("AvgPoolGrad", {vec32({1, 4, -4, 1}), dy}, attrs),
              "orig_input_shape must be non-negative, got [1,4,-4,1]");
  const attr_map nchw{{"ksize", std::vector<int>{1, 1, 2, 2}},
                      {"strides", std::vector<int>{1, 1, 2, 2}},
                      {"padding", "VALID"},
                      {"data_format", "NCHW"}};
  auto r = run_kernel("AvgPoolGrad", {vec32({1, 1, 4, 4}), tensor::filled<float>({1, 1, 2, 2}, 1.0f)},
                      nchw);
  check_error(r, "supports only data_format NHWC, got NCHW");
  CHECK(r.get_status().code() == error_code::unimplemented);
}
