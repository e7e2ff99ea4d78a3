// Conv2DBackpropInput and Conv2DBackpropFilter: hand-worked small cases, randomized cases
// against the adjoint loops of a direct convolution written here, and the errors.
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

attr_map conv_attrs(std::vector<int> strides, const char* padding) {
  return {{"strides", std::move(strides)}, {"padding", padding}};
}

tensor sizes_of(const tensor_shape& s) {
  return vec32({int32_t(s.dim(0)), int32_t(s.dim(1)), int32_t(s.dim(2)), int32_t(s.dim(3))});
}

tensor backprop_input(const tensor_shape& input, const tensor& w, const tensor& dy,
                      const attr_map& attrs) {
  auto r = run_kernel("Conv2DBackpropInput", {sizes_of(input), w, dy}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor backprop_filter(const tensor& x, const tensor_shape& filter, const tensor& dy,
                       const attr_map& attrs) {
  auto r = run_kernel("Conv2DBackpropFilter", {x, sizes_of(filter), dy}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

struct window {
  int64_t out, before;
};

window same_or_valid(int64_t in, int64_t k, int64_t stride, bool same) {
  if (!same) return {(in - k) / stride + 1, 0};
  const int64_t out = (in + stride - 1) / stride;
  return {out, std::max<int64_t>((out - 1) * stride + k - in, 0) / 2};
}

// Every (output element, filter tap) pair of a direct convolution, with the flat indices of
// the input, filter and output elements it multiplies: the forward pass sums x * w into y,
// its adjoints sum dy * w into dx and dy * x into dw.
template <class F>
void for_each_tap(const tensor_shape& x, const tensor_shape& w, int64_t sr, int64_t sc,
                  bool same, F&& f) {
  const int64_t n = x.dim(0), h = x.dim(1), wd = x.dim(2), c = x.dim(3);
  const int64_t kh = w.dim(0), kw = w.dim(1), o = w.dim(3);
  const window rows = same_or_valid(h, kh, sr, same), cols = same_or_valid(wd, kw, sc, same);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < rows.out; ++i)
      for (int64_t j = 0; j < cols.out; ++j)
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t e = 0; e < kw; ++e) {
            const int64_t ih = i * sr - rows.before + a, iw = j * sc - cols.before + e;
            if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
            for (int64_t d = 0; d < c; ++d)
              for (int64_t q = 0; q < o; ++q)
                f(((b * h + ih) * wd + iw) * c + d, ((a * kw + e) * c + d) * o + q,
                  ((b * rows.out + i) * cols.out + j) * o + q);
          }
}

tensor_shape output_shape(const tensor_shape& x, const tensor_shape& w, int64_t sr, int64_t sc,
                          bool same) {
  return {x.dim(0), same_or_valid(x.dim(1), w.dim(0), sr, same).out,
          same_or_valid(x.dim(2), w.dim(1), sc, same).out, w.dim(3)};
}

template <class T>
void check_against_loops(const tensor_shape& xs, const tensor_shape& ws, int64_t sr, int64_t sc,
                         bool same, double tol) {
  CAPTURE(xs.to_string());
  CAPTURE(ws.to_string());
  const tensor x = random_tensor<T>(xs, 3 + xs.num_elements());
  const tensor w = random_tensor<T>(ws, 5 + ws.num_elements());
  const tensor dy = random_tensor<T>(output_shape(xs, ws, sr, sc, same), 11);
  std::vector<double> dx(static_cast<size_t>(xs.num_elements())),
      dw(static_cast<size_t>(ws.num_elements()));
  for_each_tap(xs, ws, sr, sc, same, [&](int64_t xi, int64_t wi, int64_t yi) {
    dx[xi] += double(dy.data<T>()[yi]) * double(w.data<T>()[wi]);
    dw[wi] += double(dy.data<T>()[yi]) * double(x.data<T>()[xi]);
  });
  const attr_map attrs = conv_attrs({1, int(sr), int(sc), 1}, same ? "SAME" : "VALID");
  check_tensor<T>(backprop_input(xs, w, dy, attrs), xs, std::vector<T>(dx.begin(), dx.end()),
                  tol);
  check_tensor<T>(backprop_filter(x, ws, dy, attrs), ws, std::vector<T>(dw.begin(), dw.end()),
                  tol);
}

const tensor image3x3 = iota<float>({1, 3, 3, 1}, 1);   // 1..9
const tensor filter2x2 = iota<float>({2, 2, 1, 1}, 1);  // [[1, 2], [3, 4]]

}  // namespace

TEST_CASE("Conv2DBackpropInput of a 2x2 filter over a 3x3 image, VALID and SAME stride 2") {
  // VALID, stride 1, unit gradients: each input element gets the filter taps that cover it,
  // e.g. the centre all four (10), the top-right corner only w[0][1] (2).
  check_tensor<float>(backprop_input({1, 3, 3, 1}, filter2x2,
                                     tensor::filled<float>({1, 2, 2, 1}, 1.0f),
                                     conv_attrs({1, 1, 1, 1}, "VALID")),
                      {1, 3, 3, 1}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  // SAME, stride 2: windows at (0,0), (0,2), (2,0), (2,2) with gradients 1, 2, 3, 4, no
  // overlap; taps in the padding are dropped: (0,2) gets 2*1, (1,2) 2*3, (2,1) 3*2, ...
  check_tensor<float>(backprop_input({1, 3, 3, 1}, filter2x2,
                                     tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1}),
                                     conv_attrs({1, 2, 2, 1}, "SAME")),
                      {1, 3, 3, 1}, {1, 2, 2, 3, 4, 6, 3, 6, 4});
}

TEST_CASE("Conv2DBackpropFilter of a 3x3 image, VALID and SAME stride 2") {
  // VALID, unit gradients: w[a][b] gets the sum of the 2x2 block of the input at (a,b).
  check_tensor<float>(backprop_filter(image3x3, {2, 2, 1, 1},
                                      tensor::filled<float>({1, 2, 2, 1}, 1.0f),
                                      conv_attrs({1, 1, 1, 1}, "VALID")),
                      {2, 2, 1, 1}, {12, 16, 24, 28});
  // SAME, stride 2, gradients 1..4 at windows (0,0), (0,2), (2,0), (2,2):
  // w[0][0] = 1*1 + 2*3 + 3*7 + 4*9, w[0][1] = 1*2 + 3*8, w[1][0] = 1*4 + 2*6, w[1][1] = 1*5.
  check_tensor<float>(backprop_filter(image3x3, {2, 2, 1, 1},
                                      tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1}),
                                      conv_attrs({1, 2, 2, 1}, "SAME")),
                      {2, 2, 1, 1}, {64, 26, 16, 5});
}

TEST_CASE("Conv2D backprops with EXPLICIT padding and with a 1x1 filter (float64)") {
  attr_map attrs = conv_attrs({1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = std::vector<int>{0, 0, 1, 0, 0, 1, 0, 0};
  const tensor w = iota<double>({2, 2, 1, 1}, 1);
  // Windows start at rows -1, 0, 1 and columns 0, 1, 2. Unit gradients: each input element
  // gets the taps landing on it; row 0 is reached by filter rows 0 and 1 of two window rows.
  const tensor ones = tensor::filled<double>({1, 3, 3, 1}, 1.0);
  check_tensor<double>(backprop_input({1, 3, 3, 1}, w, ones, attrs), {1, 3, 3, 1},
                       {4, 10, 10, 4, 10, 10, 3, 7, 7});
  // w[0][0] sums x over window origins rows -1..1 and columns 0..2 (inside only): rows 0..1
  // = 1+2+3+4+5+6; w[1][1] over rows 0..2, columns 1..2 (column 3 is padding) = 2+3+5+6+8+9.
  check_tensor<double>(backprop_filter(iota<double>({1, 3, 3, 1}, 1), {2, 2, 1, 1}, ones, attrs),
                       {2, 2, 1, 1}, {21, 16, 45, 33});

  // 1x1: d input = dy x w^T per pixel, d filter = x^T dy over pixels.
  const tensor x = iota<double>({1, 1, 2, 2}, 1);               // pixels (1,2), (3,4)
  const tensor w11 = tensor::from_vector<double>({1, 0, 1, 0, 1, 1}, {1, 1, 2, 3});
  const tensor dy = tensor::from_vector<double>({1, 0, 2, 0, 1, 3}, {1, 1, 2, 3});
  const attr_map valid = conv_attrs({1, 1, 1, 1}, "VALID");
  check_tensor<double>(backprop_input({1, 1, 2, 2}, w11, dy, valid), {1, 1, 2, 2},
                       {3, 2, 3, 4});
  check_tensor<double>(backprop_filter(x, {1, 1, 2, 3}, dy, valid), {1, 1, 2, 3},
                       {1, 3, 11, 2, 4, 16});
}

TEST_CASE("Conv2D backprops against the adjoint loops of a direct convolution") {
  for (bool same : {true, false}) {
    CAPTURE(same);
    check_against_loops<double>({2, 7, 6, 3}, {3, 2, 3, 4}, 1, 1, same, 1e-12);
    check_against_loops<double>({3, 9, 8, 2}, {4, 3, 2, 5}, 2, 3, same, 1e-12);
    check_against_loops<double>({1, 5, 5, 1}, {5, 5, 1, 2}, 2, 2, same, 1e-12);
    check_against_loops<float>({2, 6, 7, 4}, {2, 4, 4, 3}, 3, 1, same, 1e-5);
    check_against_loops<float>({3, 4, 4, 6}, {1, 1, 6, 2}, 1, 1, same, 1e-5);
  }
}

TEST_CASE("Conv2D backprops of the Fashion-MNIST shapes, and of an image above the scratch "
          "budget") {
  check_against_loops<float>({8, 28, 28, 1}, {5, 5, 1, 32}, 1, 1, true, 1e-4);
  check_against_loops<float>({4, 14, 14, 32}, {5, 5, 32, 64}, 1, 1, true, 1e-4);
  // One image's patch matrix, 48*48 positions x 5*5*16 taps in float64, is 7 MiB: the input
  // gradient is built in blocks of positions.
  check_against_loops<double>({2, 48, 48, 16}, {5, 5, 16, 2}, 1, 1, true, 1e-10);
}

TEST_CASE("Conv2D backprops of empty tensors give zeros of the right shape") {
  const attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  auto dx = run_kernel("Conv2DBackpropInput", {vec32({1, 2, 2, 1}), iota<float>({2, 2, 1, 0}),
                                               tensor(dtype::float32, {1, 2, 2, 0})},
                       same);
  REQUIRE(dx.ok());
  check_tensor<float>(dx->at(0), {1, 2, 2, 1}, {0, 0, 0, 0});
  auto dw = run_kernel("Conv2DBackpropFilter", {tensor(dtype::float32, {0, 3, 3, 1}),
                                                vec32({2, 2, 1, 2}),
                                                tensor(dtype::float32, {0, 3, 3, 2})},
                       same);
  REQUIRE(dw.ok());
  check_tensor<float>(dw->at(0), {2, 2, 1, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("Conv2D backprops reject mismatched shapes and bad size vectors") {
  const attr_map valid = conv_attrs({1, 1, 1, 1}, "VALID");
  const tensor dy3 = tensor::filled<float>({1, 3, 3, 1}, 1.0f);
  check_error(run_kernel("Conv2DBackpropInput", {vec32({1, 3, 3, 1}), filter2x2, dy3}, valid),
              "out_backprop has shape [1,3,3,1] but input_sizes and filter give [1,2,2,1]");
  check_error(
      run_kernel_unchecked("Conv2DBackpropInput", {vec32({1, 3, 3, 1}), filter2x2, dy3}, valid),
      "out_backprop has shape [1,3,3,1] but input_sizes [1,3,3,1] and filter [2,2,1,1] give "
      "[1,2,2,1]");
  check_error(run_kernel("Conv2DBackpropFilter", {image3x3, vec32({2, 2, 1, 1}), dy3}, valid),
              "out_backprop has shape [1,3,3,1] but input and filter_sizes give [1,2,2,1]");
  check_error(
      run_kernel_unchecked("Conv2DBackpropFilter", {image3x3, vec32({2, 2, 1, 1}), dy3}, valid),
      "out_backprop has shape [1,3,3,1] but input [1,3,3,1] and filter_sizes [2,2,1,1] give "
      "[1,2,2,1]");
  const tensor dy2 = tensor::filled<float>({1, 2, 2, 1}, 1.0f);
  check_error(run_kernel("Conv2DBackpropInput", {vec32({1, 3, 3}), filter2x2, dy2}, valid),
              "input_sizes must be a vector of 4 sizes, got shape [3]");
  check_error(
      run_kernel_unchecked("Conv2DBackpropInput", {vec32({1, 3, 3}), filter2x2, dy2}, valid),
      "input_sizes must be an int32 vector of 4 sizes, got int32[3]");
  check_error(run_kernel("Conv2DBackpropInput", {vec32({1, -3, 3, 1}), filter2x2, dy2}, valid),
              "input_sizes must be non-negative, got [1,-3,3,1]");
  check_error(run_kernel_unchecked("Conv2DBackpropFilter",
                                   {image3x3, vec32({2, 2, 1, -1}), dy2}, valid),
              "filter_sizes must be non-negative, got [2,2,1,-1]");
  check_error(run_kernel("Conv2DBackpropInput", {vec32({1, 3, 3, 2}), filter2x2, dy2}, valid),
              "input and filter must have the same depth: 2 vs 1");
  check_error(run_kernel_unchecked("Conv2DBackpropFilter",
                                   {iota<float>({3, 3, 1}), vec32({2, 2, 1, 1}), dy2}, valid),
              "input must be 4-dimensional, got shape [3,3,1]");
  attr_map nchw = valid;
  nchw["data_format"] = "NCHW";
  auto r = run_kernel("Conv2DBackpropFilter",
                      {iota<float>({1, 1, 3, 3}), vec32({2, 2, 1, 1}),
                       tensor::filled<float>({1, 1, 2, 2}, 1.0f)},
                      nchw);
  check_error(r, "supports only data_format NHWC");
  CHECK(r.get_status().code() == error_code::unimplemented);
}
