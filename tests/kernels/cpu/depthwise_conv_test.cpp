// DepthwiseConv2dNative kernels and shape functions against a direct reference.
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

attr_map attrs(std::vector<int> strides, const char* padding, std::vector<int> dilations = {1, 1, 1, 1}) {
  return {{"strides", std::move(strides)}, {"padding", padding}, {"dilations", std::move(dilations)}};
}

tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + phase);
  return tensor::from_vector<double>(v, shape);
}

// out[n, oh, ow, c * M + m] = sum x[n, oh * s - pad + kh * d, ow * s - pad + kw * d, c] *
// w[kh, kw, c, m], by the definition.
tensor reference(const tensor& x, const tensor& w, int stride, int dil, int pad_top, int pad_left,
                 int64_t out_rows, int64_t out_cols) {
  const int64_t n = x.dim(0), h = x.dim(1), wd = x.dim(2), c = x.dim(3);
  const int64_t fr = w.dim(0), fc = w.dim(1), m = w.dim(3);
  std::vector<double> out(static_cast<size_t>(n * out_rows * out_cols * c * m), 0.0);
  const double* xv = x.data<double>();
  const double* wv = w.data<double>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oh = 0; oh < out_rows; ++oh)
      for (int64_t ow = 0; ow < out_cols; ++ow)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t k = 0; k < m; ++k) {
            double acc = 0;
            for (int64_t kh = 0; kh < fr; ++kh)
              for (int64_t kw = 0; kw < fc; ++kw) {
                const int64_t ih = oh * stride - pad_top + kh * dil;
                const int64_t iw = ow * stride - pad_left + kw * dil;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                acc += xv[((b * h + ih) * wd + iw) * c + ch] * wv[((kh * fc + kw) * c + ch) * m + k];
              }
            out[static_cast<size_t>((((b * out_rows + oh) * out_cols + ow) * c + ch) * m + k)] = acc;
          }
  return tensor::from_vector<double>(out, {n, out_rows, out_cols, c * m});
}

}  // namespace

TEST_CASE("DepthwiseConv2dNative: each channel with its own filters") {
  // One 2x2 image of two channels, a 1x1 filter with multiplier 2: channel c times w[c, m].
  auto x = tensor::from_vector<float>({1, 10, 2, 20, 3, 30, 4, 40}, {1, 2, 2, 2});
  auto w = tensor::from_vector<float>({1, -1, 0.5f, 2}, {1, 1, 2, 2});
  auto out = run_kernel("DepthwiseConv2dNative", {x, w}, attrs({1, 1, 1, 1}, "VALID"));
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {1, 2, 2, 4},
                      {1, -1, 5, 20, 2, -2, 10, 40, 3, -3, 15, 60, 4, -4, 20, 80});
}

TEST_CASE("DepthwiseConv2dNative matches the definition with strides, padding and dilations") {
  struct config {
    int stride, dil;
    const char* padding;
    int pad_top, pad_left;
    int64_t rows, cols;
  };
  // Input 7x6, filter 3x2: SAME with stride 2 gives 4x3 with pads (1, 0); dilated by 2 VALID
  // gives 3x4; SAME dilated by 2 pads (2, 1).
  for (const config& cfg : {config{1, 1, "VALID", 0, 0, 5, 5}, config{2, 1, "SAME", 1, 0, 4, 3},
                            config{1, 2, "VALID", 0, 0, 3, 4}, config{1, 2, "SAME", 2, 1, 7, 6}}) {
    CAPTURE(cfg.stride);
    CAPTURE(cfg.dil);
    CAPTURE(cfg.padding);
    const tensor x = wavy({2, 7, 6, 3}, 0.1), w = wavy({3, 2, 3, 2}, 1.3);
    auto out = run_kernel("DepthwiseConv2dNative", {x, w},
                          attrs({1, cfg.stride, cfg.stride, 1}, cfg.padding,
                                {1, cfg.dil, cfg.dil, 1}));
    REQUIRE(out.ok());
    check_tensor(out->at(0), reference(x, w, cfg.stride, cfg.dil, cfg.pad_top, cfg.pad_left,
                                       cfg.rows, cfg.cols),
                 1e-12);
  }
}

TEST_CASE("DepthwiseConv2dNative's backprops are the adjoints of the forward op") {
  // <conv(x, w), g> = <x, backprop_input(shape(x), w, g)> = <w, backprop_filter(x, shape(w), g)>.
  const tensor x = wavy({2, 5, 4, 2}, 0.3), w = wavy({2, 3, 2, 3}, 2.0);
  const attr_map a = attrs({1, 2, 1, 1}, "SAME", {1, 1, 2, 1});
  auto y = run_kernel("DepthwiseConv2dNative", {x, w}, a);
  REQUIRE(y.ok());
  const tensor g = wavy(y->at(0).shape(), 0.9);
  auto dx = run_kernel("DepthwiseConv2dNativeBackpropInput",
                       {tensor::from_vector<int32_t>({2, 5, 4, 2}), w, g}, a);
  auto dw = run_kernel("DepthwiseConv2dNativeBackpropFilter",
                       {x, tensor::from_vector<int32_t>({2, 3, 2, 3}), g}, a);
  REQUIRE(dx.ok());
  REQUIRE(dw.ok());
  auto dot = [](const tensor& a, const tensor& b) {
    double s = 0;
    for (int64_t i = 0; i < a.num_elements(); ++i) s += a.data<double>()[i] * b.data<double>()[i];
    return s;
  };
  const double yg = dot(y->at(0), g);
  CHECK(dot(x, dx->at(0)) == doctest::Approx(yg).epsilon(1e-12));
  CHECK(dot(w, dw->at(0)) == doctest::Approx(yg).epsilon(1e-12));
}

TEST_CASE("DepthwiseConv2dNative rejects mismatched depths, bad ranks, NCHW and bad sizes") {
  const tensor x = iota<float>({1, 3, 3, 2});
  check_error(run_kernel("DepthwiseConv2dNative", {x, iota<float>({2, 2, 3, 1})},
                         attrs({1, 1, 1, 1}, "VALID")),
              "input depth 2 does not match filter depth 3");
  check_error(run_kernel_unchecked("DepthwiseConv2dNative", {iota<float>({3, 3, 2}), iota<float>({2, 2, 2, 1})},
                                   attrs({1, 1, 1, 1}, "VALID")),
              "input must be 4-dimensional");
  check_error(run_kernel("DepthwiseConv2dNative", {x, iota<float>({5, 5, 2, 1})},
                         attrs({1, 1, 1, 1}, "VALID")),
              "computed output size would be negative");
  check_error(run_kernel("DepthwiseConv2dNative", {x, iota<float>({1, 1, 2, 1})},
                         attrs({1, 1, 1, 1}, "FULL")),
              "invalid padding 'FULL'");
  attr_map nchw = attrs({1, 1, 1, 1}, "VALID");
  nchw["data_format"] = "NCHW";
  auto r = run_kernel("DepthwiseConv2dNative", {iota<float>({1, 2, 3, 3}), iota<float>({1, 1, 2, 1})},
                      nchw);
  check_error(r, "supports only data_format NHWC");
  CHECK(r.get_status().code() == error_code::unimplemented);
  check_error(run_kernel("DepthwiseConv2dNativeBackpropInput",
                         {tensor::from_vector<int32_t>({1, 3, 3}), iota<float>({1, 1, 2, 1}),
                          iota<float>({1, 3, 3, 2})},
                         attrs({1, 1, 1, 1}, "VALID")),
              "input_sizes must be a vector of 4 sizes");
  check_error(run_kernel_unchecked("DepthwiseConv2dNativeBackpropFilter",
                                   {x, tensor::from_vector<int32_t>({1, 1, 2, 1}),
                                    iota<float>({1, 2, 3, 2})},
                                   attrs({1, 1, 1, 1}, "VALID")),
              "out_backprop has shape [1,2,3,2] but the input and filter give [1,3,3,2]");
}
