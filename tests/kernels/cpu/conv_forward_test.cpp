// Conv2D: hand-worked small cases, randomized cases against a direct convolution written
// here, and the errors.
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

attr_map conv_attrs(std::vector<int> strides, const char* padding) {
  return {{"strides", std::move(strides)}, {"padding", padding}};
}

tensor conv(const tensor& x, const tensor& w, const attr_map& attrs) {
  auto r = run_kernel("Conv2D", {x, w}, attrs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

// Deterministic values in [-1, 1).
struct window {
  int64_t out, before;
};

// TensorFlow's rule, restated independently of the library.
window same_or_valid(int64_t in, int64_t k, int64_t stride, bool same) {
  if (!same) return {(in - k) / stride + 1, 0};
  const int64_t out = (in + stride - 1) / stride;
  return {out, std::max<int64_t>((out - 1) * stride + k - in, 0) / 2};
}

// The textbook loop nest: every output element is a sum over the filter's taps.
template <class T>
tensor direct_conv(const tensor& x, const tensor& w, int64_t sr, int64_t sc, window rows,
                   window cols) {
  const int64_t n = x.dim(0), h = x.dim(1), wd = x.dim(2), c = x.dim(3);
  const int64_t kh = w.dim(0), kw = w.dim(1), o = w.dim(3);
  tensor y(x.type(), {n, rows.out, cols.out, o});
  const T* xp = x.data<T>();
  const T* wp = w.data<T>();
  T* yp = y.data<T>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < rows.out; ++i)
      for (int64_t j = 0; j < cols.out; ++j)
        for (int64_t q = 0; q < o; ++q) {
          double sum = 0;
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t e = 0; e < kw; ++e) {
              const int64_t ih = i * sr - rows.before + a, iw = j * sc - cols.before + e;
              if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
              for (int64_t d = 0; d < c; ++d)
                sum += double(xp[((b * h + ih) * wd + iw) * c + d]) *
                       double(wp[((a * kw + e) * c + d) * o + q]);
            }
          yp[((b * rows.out + i) * cols.out + j) * o + q] = static_cast<T>(sum);
        }
  return y;
}

template <class T>
void check_against_direct(const tensor_shape& in, const tensor_shape& filter, int64_t sr,
                          int64_t sc, bool same, double tol) {
  const tensor x = random_tensor<T>(in, 1 + in.num_elements());
  const tensor w = random_tensor<T>(filter, 7 + filter.num_elements());
  const tensor y = conv(x, w, conv_attrs({1, int(sr), int(sc), 1}, same ? "SAME" : "VALID"));
  const tensor expected =
      direct_conv<T>(x, w, sr, sc, same_or_valid(in.dim(1), filter.dim(0), sr, same),
                     same_or_valid(in.dim(2), filter.dim(1), sc, same));
  check_tensor(y, expected, tol);
}

const tensor image3x3 = iota<float>({1, 3, 3, 1}, 1);           // 1..9
const tensor filter2x2 = iota<float>({2, 2, 1, 1}, 1);          // [[1, 2], [3, 4]]

}  // namespace

TEST_CASE("Conv2D of a 3x3 image with a 2x2 filter, VALID and SAME, strides 1 and 2") {
  // VALID, stride 1: each 2x2 window dotted with [[1, 2], [3, 4]]; window (0,0) is
  // 1*1 + 2*2 + 4*3 + 5*4 = 37, and each step right adds 1+2+3+4 = 10, each step down 30.
  check_tensor<float>(conv(image3x3, filter2x2, conv_attrs({1, 1, 1, 1}, "VALID")), {1, 2, 2, 1},
                      {37, 47, 67, 77});
  // SAME, stride 1: pad_total = 1, all of it after, so the last row and column see zeros:
  // (0,2) = 3*1 + 6*3 = 21, (2,0) = 7*1 + 8*2 = 23, (2,2) = 9*1.
  check_tensor<float>(conv(image3x3, filter2x2, conv_attrs({1, 1, 1, 1}, "SAME")), {1, 3, 3, 1},
                      {37, 47, 21, 67, 77, 33, 23, 26, 9});
  // SAME, stride 2: ceil(3/2) = 2 windows per dim starting at 0 and 2.
  check_tensor<float>(conv(image3x3, filter2x2, conv_attrs({1, 2, 2, 1}, "SAME")), {1, 2, 2, 1},
                      {37, 21, 23, 9});
  // VALID, stride 2: (3 - 2 + 2) / 2 = 1 window per dim.
  check_tensor<float>(conv(image3x3, filter2x2, conv_attrs({1, 2, 2, 1}, "VALID")), {1, 1, 1, 1},
                      {37});
  // Strides differ per dim: rows step 1, columns step 2.
  check_tensor<float>(conv(image3x3, filter2x2, conv_attrs({1, 1, 2, 1}, "VALID")), {1, 2, 1, 1},
                      {37, 67});
}

TEST_CASE("Conv2D SAME with padding on both sides sums each 3x3 neighbourhood (float64)") {
  const tensor x = iota<double>({1, 3, 3, 1}, 1);
  const tensor ones = tensor::filled<double>({3, 3, 1, 1}, 1.0);
  // pad_total = 2: one before, one after. Corner (0,0) = 1+2+4+5, edge (0,1) = 1+..+6, ...
  check_tensor<double>(conv(x, ones, conv_attrs({1, 1, 1, 1}, "SAME")), {1, 3, 3, 1},
                       {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST_CASE("Conv2D with EXPLICIT padding: one row of zeros on top, one column on the right") {
  attr_map attrs = conv_attrs({1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = std::vector<int>{0, 0, 1, 0, 0, 1, 0, 0};
  // Top row of windows sees only the filter's bottom row [3, 4] over input row 0:
  // 3*1 + 4*2 = 11, 3*2 + 4*3 = 18, 3*3 + 4*0 = 9; the rest is the SAME result above.
  check_tensor<float>(conv(image3x3, filter2x2, attrs), {1, 3, 3, 1},
                      {11, 18, 9, 37, 47, 21, 67, 77, 33});
}

TEST_CASE("Conv2D with a 1x1 filter mixes channels per pixel") {
  const tensor x = iota<float>({1, 2, 2, 2}, 1);  // pixels (1,2), (3,4), (5,6), (7,8)
  // out channel 0 = in 0, out 1 = in 1, out 2 = in 0 + in 1.
  const tensor w = tensor::from_vector<float>({1, 0, 1, 0, 1, 1}, {1, 1, 2, 3});
  check_tensor<float>(conv(x, w, conv_attrs({1, 1, 1, 1}, "VALID")), {1, 2, 2, 3},
                      {1, 2, 3, 3, 4, 7, 5, 6, 11, 7, 8, 15});
  // Stride 2 leaves only pixel (0,0), through the general path.
  check_tensor<float>(conv(x, w, conv_attrs({1, 2, 2, 1}, "VALID")), {1, 1, 1, 3}, {1, 2, 3});
}

TEST_CASE("Conv2D against a direct convolution, many shapes, strides and paddings") {
  for (bool same : {true, false}) {
    CAPTURE(same);
    check_against_direct<double>({2, 7, 6, 3}, {3, 2, 3, 4}, 1, 1, same, 1e-12);
    check_against_direct<double>({3, 9, 8, 2}, {4, 3, 2, 5}, 2, 3, same, 1e-12);
    check_against_direct<double>({1, 5, 5, 1}, {5, 5, 1, 2}, 2, 2, same, 1e-12);
    check_against_direct<float>({2, 6, 7, 4}, {2, 4, 4, 3}, 3, 1, same, 1e-5);
  }
}

TEST_CASE("Conv2D of the Fashion-MNIST shapes runs in parallel tiles and matches (float32)") {
  // Enough output positions for several tiles per intra-op thread.
  check_against_direct<float>({8, 28, 28, 1}, {5, 5, 1, 32}, 1, 1, true, 1e-5);
  check_against_direct<float>({4, 14, 14, 32}, {5, 5, 32, 64}, 1, 1, true, 1e-4);
  check_against_direct<float>({6, 16, 16, 8}, {1, 1, 8, 16}, 1, 1, false, 1e-5);
}

TEST_CASE("Conv2D of empty tensors") {
  // No images: an empty output of the right shape.
  auto empty_batch = run_kernel("Conv2D", {tensor(dtype::float32, {0, 4, 4, 2}),
                                           tensor(dtype::float32, {3, 3, 2, 5})},
                                conv_attrs({1, 1, 1, 1}, "SAME"));
  REQUIRE(empty_batch.ok());
  CHECK(empty_batch->at(0).shape() == tensor_shape{0, 4, 4, 5});
  // No input channels: every sum is empty, so zeros.
  auto no_depth = run_kernel("Conv2D", {tensor(dtype::float64, {1, 2, 2, 0}),
                                        tensor(dtype::float64, {2, 2, 0, 3})},
                             conv_attrs({1, 1, 1, 1}, "VALID"));
  REQUIRE(no_depth.ok());
  check_tensor<double>(no_depth->at(0), {1, 1, 1, 3}, {0, 0, 0});
  // A VALID window that fits nowhere with a large stride: zero windows.
  auto none = run_kernel("Conv2D", {iota<float>({1, 2, 2, 1}), iota<float>({3, 3, 1, 1})},
                         conv_attrs({1, 2, 2, 1}, "VALID"));
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{1, 0, 0, 1});
}

TEST_CASE("Conv2D rejects bad ranks, depths, strides and paddings, at construction and run") {
  const tensor x = iota<float>({1, 3, 3, 2});
  const tensor w = iota<float>({2, 2, 1, 1});
  const attr_map ok = conv_attrs({1, 1, 1, 1}, "VALID");
  check_error(run_kernel("Conv2D", {x, w}, ok),
              "input and filter must have the same depth: 2 vs 1 (input [1,3,3,2], filter "
              "[2,2,1,1])");
  check_error(run_kernel_unchecked("Conv2D", {x, w}, ok),
              "input and filter must have the same depth: 2 vs 1");
  check_error(run_kernel("Conv2D", {iota<float>({3, 3, 1}), w}, ok),
              "input must be 4-dimensional, got shape [3,3,1]");
  check_error(run_kernel_unchecked("Conv2D", {iota<float>({3, 3, 1}), w}, ok),
              "input must be 4-dimensional, got shape [3,3,1]");
  check_error(run_kernel_unchecked("Conv2D", {image3x3, iota<float>({2, 2, 1})}, ok),
              "filter must be 4-dimensional, got shape [2,2,1]");
  check_error(run_kernel("Conv2D", {image3x3, filter2x2}, conv_attrs({1, 1, 1}, "VALID")),
              "strides field must specify 4 dimensions, got [1,1,1]");
  auto batch_stride = run_kernel("Conv2D", {image3x3, filter2x2}, conv_attrs({2, 1, 1, 1}, "SAME"));
  check_error(batch_stride, "does not yet support strides in the batch and depth dimensions");
  check_error(run_kernel("Conv2D", {image3x3, filter2x2}, conv_attrs({1, 0, 1, 1}, "SAME")),
              "strides must be positive");
  check_error(run_kernel("Conv2D", {image3x3, filter2x2}, conv_attrs({1, 1, 1, 1}, "FULL")),
              "invalid padding 'FULL' (expected SAME, VALID or EXPLICIT)");
  check_error(run_kernel("Conv2D", {image3x3, iota<float>({5, 1, 1, 1})}, ok),
              "computed output size would be negative: -1 [input_size: 3, effective_filter_size: "
              "5, stride: 1] (rows of input [1,3,3,1], filter [5,1,1,1])");
  attr_map stray = ok;
  stray["explicit_paddings"] = std::vector<int>{0, 0, 1, 1, 1, 1, 0, 0};
  check_error(run_kernel("Conv2D", {image3x3, filter2x2}, stray),
              "given with a padding other than EXPLICIT");
  attr_map short_pads = conv_attrs({1, 1, 1, 1}, "EXPLICIT");
  short_pads["explicit_paddings"] = std::vector<int>{1, 1};
  check_error(run_kernel("Conv2D", {image3x3, filter2x2}, short_pads),
              "explicit_paddings must hold 8 values");
}

TEST_CASE("Conv2D with NCHW builds but has no CPU kernel") {
  attr_map nchw = conv_attrs({1, 1, 1, 1}, "VALID");
  nchw["data_format"] = "NCHW";
  auto r = run_kernel("Conv2D", {iota<float>({1, 1, 3, 3}), filter2x2}, nchw);
  check_error(r, "supports only data_format NHWC, got NCHW");
  CHECK(r.get_status().code() == error_code::unimplemented);
}

TEST_CASE("Conv2D with dilations spreads the filter taps") {
  // 2x2 ones dilated by 2 over 0..24 in a 5x5 image: out[i, j] = x[i, j] + x[i, j + 2] +
  // x[i + 2, j] + x[i + 2, j + 2] = 20 i + 4 j + 24.
  const tensor ones = tensor::filled<float>({2, 2, 1, 1}, 1.0f);
  attr_map dilated = conv_attrs({1, 1, 1, 1}, "VALID");
  dilated["dilations"] = std::vector<int>{1, 2, 2, 1};
  auto d = run_kernel("Conv2D", {iota<float>({1, 5, 5, 1}), ones}, dilated);
  REQUIRE(d.ok());
  check_tensor<float>(d->at(0), {1, 3, 3, 1}, {24, 28, 32, 44, 48, 52, 64, 68, 72});
  // SAME: the effective 3x3 window is padded by one on each side; rows only dilated.
  attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  same["dilations"] = std::vector<int>{1, 2, 1, 1};
  auto s = run_kernel("Conv2D", {iota<float>({1, 3, 2, 1}), ones}, same);
  REQUIRE(s.ok());
  // Effective window 3x2: rows pad 1 before and 1 after, columns 0 before and 1 after. Output
  // (i, j) sums rows i-1 and i+1, columns j and j+1.
  check_tensor<float>(s->at(0), {1, 3, 2, 1}, {5, 3, 10, 6, 5, 3});
  attr_map bad = conv_attrs({1, 1, 1, 1}, "VALID");
  bad["dilations"] = std::vector<int>{1, 4, 4, 1};
  check_error(run_kernel("Conv2D", {iota<float>({1, 3, 3, 1}), ones}, bad),
              "computed output size would be negative");
  bad["dilations"] = std::vector<int>{2, 1, 1, 1};
  check_error(run_kernel("Conv2D", {iota<float>({1, 3, 3, 1}), ones}, bad),
              "does not yet support dilations in the batch and depth dimensions");
}
