// MaxPool and MaxPoolGrad: hand-worked windows (edges under SAME padding, ties, overlapping
// windows), randomized cases against loops written here, and the errors.
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

namespace {

using attr_map = std::map<std::string, attr_value>;

attr_map pool_attrs(int k, int stride, const char* padding) {
  return {{"ksize", std::vector<int>{1, k, k, 1}},
          {"strides", std::vector<int>{1, stride, stride, 1}},
          {"padding", padding}};
}

tensor max_pool(const tensor& x, const attr_map& attrs) {
  auto r = run_kernel("MaxPool", {x}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor max_pool_grad(const tensor& x, const tensor& dy, const attr_map& attrs) {
  const tensor y = max_pool(x, attrs);
  auto r = run_kernel("MaxPoolGrad", {x, y, dy}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

// Max pooling and its gradient by the definition: each window's first maximum (row-major).
void check_against_loops(const tensor_shape& xs, int k, int stride, bool same) {
  CAPTURE(xs.to_string());
  CAPTURE(k);
  CAPTURE(stride);
  CAPTURE(same);
  const tensor x = random_tensor<double>(xs, 17 + xs.num_elements());
  const int64_t n = xs.dim(0), h = xs.dim(1), w = xs.dim(2), c = xs.dim(3);
  auto out = [&](int64_t in) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; };
  auto before = [&](int64_t in) {
    return same ? std::max<int64_t>((out(in) - 1) * stride + k - in, 0) / 2 : 0;
  };
  const int64_t oh = out(h), ow = out(w), ph = before(h), pw = before(w);
  const tensor dy = random_tensor<double>({n, oh, ow, c}, 23);
  std::vector<double> y(static_cast<size_t>(n * oh * ow * c)), dx(xs.num_elements());
  const double* xp = x.data<double>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t d = 0; d < c; ++d) {
          int64_t best = -1;
          for (int64_t a = 0; a < k; ++a)
            for (int64_t e = 0; e < k; ++e) {
              const int64_t r = i * stride - ph + a, s = j * stride - pw + e;
              if (r < 0 || r >= h || s < 0 || s >= w) continue;
              const int64_t at = ((b * h + r) * w + s) * c + d;
              if (best < 0 || xp[at] > xp[best]) best = at;
            }
          const int64_t yi = ((b * oh + i) * ow + j) * c + d;
          y[yi] = xp[best];
          dx[best] += dy.data<double>()[yi];
        }
  const attr_map attrs = pool_attrs(k, stride, same ? "SAME" : "VALID");
  check_tensor<double>(max_pool(x, attrs), {n, oh, ow, c}, y);
  check_tensor<double>(max_pool_grad(x, dy, attrs), xs, dx);
}

}  // namespace

TEST_CASE("MaxPool 2x2 stride 2, VALID and SAME, with the edge windows SAME adds") {
  // 4x4 iota: the maximum of each 2x2 block is its bottom-right element.
  check_tensor<float>(max_pool(iota<float>({1, 4, 4, 1}), pool_attrs(2, 2, "VALID")),
                      {1, 2, 2, 1}, {5, 7, 13, 15});
  // 3x3 of 1..9, SAME: pad_total = 1, all after, so windows cover rows {0,1} and {2}: the
  // right and bottom windows hold 2 elements, the corner one only 9.
  const tensor x = iota<float>({1, 3, 3, 1}, 1);
  check_tensor<float>(max_pool(x, pool_attrs(2, 2, "SAME")), {1, 2, 2, 1}, {5, 6, 8, 9});
  // VALID drops the partial windows.
  check_tensor<float>(max_pool(x, pool_attrs(2, 2, "VALID")), {1, 1, 1, 1}, {5});
  // 3x3 window, stride 1, SAME: one row/column of padding on each side, so each output is
  // the maximum of the clipped 3x3 neighbourhood.
  check_tensor<float>(max_pool(x, pool_attrs(3, 1, "SAME")), {1, 3, 3, 1},
                      {5, 6, 6, 8, 9, 9, 8, 9, 9});
}

TEST_CASE("MaxPool of negative values per channel, padding never counts as a value") {
  // Two channels; every value negative, so a zero from the padding would win if it counted.
  const tensor x = tensor::from_vector<double>({-1, -8, -2, -7, -3, -6, -4, -5}, {1, 2, 2, 2});
  check_tensor<double>(max_pool(x, pool_attrs(3, 2, "SAME")), {1, 1, 1, 2}, {-1, -5});
  check_tensor<double>(max_pool(x, pool_attrs(1, 1, "VALID")), {1, 2, 2, 2},
                       {-1, -8, -2, -7, -3, -6, -4, -5});
}

TEST_CASE("MaxPool of integers") {
  const tensor x = tensor::from_vector<int32_t>({3, -1, 7, 2, 0, 9, -5, 4, 1}, {1, 3, 3, 1});
  check_tensor<int32_t>(max_pool(x, pool_attrs(2, 1, "VALID")), {1, 2, 2, 1}, {3, 9, 4, 9});
  const tensor bytes = tensor::from_vector<uint8_t>({10, 200, 30, 40}, {1, 2, 2, 1});
  check_tensor<uint8_t>(max_pool(bytes, pool_attrs(2, 2, "VALID")), {1, 1, 1, 1}, {200});
  const tensor wide = tensor::from_vector<int64_t>({-5, -9, -7, -6}, {1, 2, 2, 1});
  check_tensor<int64_t>(max_pool(wide, pool_attrs(2, 2, "SAME")), {1, 1, 1, 1}, {-5});
}

TEST_CASE("MaxPoolGrad sends each window's gradient to its first maximum") {
  // A tie across the whole window: the first element (row-major) takes it all.
  check_tensor<float>(max_pool_grad(tensor::filled<float>({1, 2, 2, 1}, 3.0f),
                                    tensor::from_vector<float>({5}, {1, 1, 1, 1}),
                                    pool_attrs(2, 2, "VALID")),
                      {1, 2, 2, 1}, {5, 0, 0, 0});
  // Overlapping windows (2x2, stride 1) that all hold the centre maximum: it collects the sum
  // of their gradients, 1 + 2 + 3 + 4.
  const tensor centre = tensor::from_vector<float>({1, 2, 3, 4, 9, 5, 6, 7, 8}, {1, 3, 3, 1});
  check_tensor<float>(max_pool_grad(centre, tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1}),
                                    pool_attrs(2, 1, "VALID")),
                      {1, 3, 3, 1}, {0, 0, 0, 0, 10, 0, 0, 0, 0});
  // SAME, 2x2 stride 2 over 1..9: windows' maxima are 5, 6, 8 and 9.
  check_tensor<double>(max_pool_grad(iota<double>({1, 3, 3, 1}, 1),
                                     tensor::from_vector<double>({1, 2, 3, 4}, {1, 2, 2, 1}),
                                     pool_attrs(2, 2, "SAME")),
                       {1, 3, 3, 1}, {0, 0, 0, 0, 1, 2, 0, 3, 4});
}

TEST_CASE("MaxPool and MaxPoolGrad against loops, many shapes, windows and paddings") {
  for (bool same : {true, false}) {
    check_against_loops({2, 7, 6, 3}, 2, 2, same);
    check_against_loops({3, 9, 8, 2}, 3, 2, same);
    check_against_loops({1, 5, 5, 4}, 3, 1, same);
    check_against_loops({2, 6, 7, 1}, 2, 3, same);
    // Large enough to split over the intra-op pool.
    check_against_loops({32, 28, 28, 8}, 2, 2, same);
  }
}

TEST_CASE("MaxPool of empty tensors") {
  auto r = run_kernel("MaxPool", {tensor(dtype::float32, {0, 4, 4, 3})}, pool_attrs(2, 2, "VALID"));
  REQUIRE(r.ok());
  CHECK(r->at(0).shape() == tensor_shape{0, 2, 2, 3});
  auto g = run_kernel("MaxPoolGrad",
                      {tensor(dtype::float32, {2, 4, 4, 0}), tensor(dtype::float32, {2, 2, 2, 0}),
                       tensor(dtype::float32, {2, 2, 2, 0})},
                      pool_attrs(2, 2, "VALID"));
  REQUIRE(g.ok());
  CHECK(g->at(0).shape() == tensor_shape{2, 4, 4, 0});
}

TEST_CASE("MaxPool and MaxPoolGrad reject bad windows and mismatched shapes") {
  const tensor x = iota<float>({1, 4, 4, 1});
  check_error(run_kernel("MaxPool", {x}, {{"ksize", std::vector<int>{1, 2, 2}},
                                          {"strides", std::vector<int>{1, 2, 2, 1}},
                                          {"padding", "VALID"}}),
              "ksize field must specify 4 dimensions, got [1,2,2]");
  auto depth = run_kernel("MaxPool", {x}, {{"ksize", std::vector<int>{1, 2, 2, 2}},
                                           {"strides", std::vector<int>{1, 2, 2, 1}},
                                           {"padding", "VALID"}});
  check_error(depth, "does not yet support pooling in the batch and depth dimensions: ksize "
                     "[1,2,2,2]");
  CHECK(depth.get_status().code() == error_code::unimplemented);
  check_error(run_kernel("MaxPool", {x}, {{"ksize", std::vector<int>{1, 0, 2, 1}},
                                          {"strides", std::vector<int>{1, 2, 2, 1}},
                                          {"padding", "VALID"}}),
              "ksize must be positive in the row and column dimensions, got [1,0,2,1]");
  check_error(run_kernel("MaxPool", {x}, pool_attrs(2, 2, "EXPLICIT")),
              "invalid padding 'EXPLICIT' (expected SAME or VALID)");
  check_error(run_kernel("MaxPool", {iota<float>({4, 4, 1})}, pool_attrs(2, 2, "VALID")),
              "input must be 4-dimensional, got shape [4,4,1]");
  check_error(run_kernel_unchecked("MaxPool", {iota<float>({4, 4, 1})}, pool_attrs(2, 2, "VALID")),
              "input must be 4-dimensional, got shape [4,4,1]");
  check_error(run_kernel("MaxPool", {iota<float>({1, 2, 2, 1})}, pool_attrs(4, 1, "VALID")),
              "computed output size would be negative: -1 [input_size: 2, effective_filter_size: "
              "4, stride: 1] (rows of input [1,2,2,1])");
  const attr_map nchw{{"ksize", std::vector<int>{1, 1, 2, 2}},
                      {"strides", std::vector<int>{1, 1, 2, 2}},
                      {"padding", "VALID"},
                      {"data_format", "NCHW"}};
  auto r = run_kernel("MaxPool", {iota<float>({1, 1, 4, 4})}, nchw);
  check_error(r, "supports only data_format NHWC, got NCHW");
  CHECK(r.get_status().code() == error_code::unimplemented);

  const tensor y = tensor(dtype::float32, {1, 2, 2, 1});
  const tensor wrong = tensor(dtype::float32, {1, 3, 2, 1});
  const attr_map attrs = pool_attrs(2, 2, "VALID");
  check_error(run_kernel("MaxPoolGrad", {x, wrong, y}, attrs),
              "orig_output has shape [1,3,2,1] but orig_input and the window give [1,2,2,1]");
  check_error(run_kernel_unchecked("MaxPoolGrad", {x, wrong, y}, attrs),
              "orig_output has shape [1,3,2,1] but pooling orig_input [1,4,4,1] gives [1,2,2,1]");
  check_error(run_kernel("MaxPoolGrad", {x, y, wrong}, attrs),
              "grad has shape [1,3,2,1] but orig_input and orig_output give [1,2,2,1]");
  check_error(run_kernel_unchecked("MaxPoolGrad", {x, y, wrong}, attrs),
              "grad has shape [1,3,2,1] but orig_output has shape [1,2,2,1]");
  check_error(run_kernel_unchecked("MaxPoolGrad", {iota<float>({4, 4}), y, y}, attrs),
              "orig_input must be 4-dimensional, got shape [4,4]");
}
