// _FusedConv2D, _FusedDepthwiseConv2dNative and FusedDepthwiseConv2dNative: the convolution,
// then BiasAdd or an inference FusedBatchNorm, then an activation, in one kernel.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

using attrs = std::map<std::string, attr_value>;
using strings = std::vector<std::string>;

std::vector<tensor> run(const std::string& op, const std::vector<tensor>& inputs, attrs a) {
  auto r = run_kernel(op, inputs, std::move(a));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

attrs conv_attrs(strings fused_ops, std::vector<int64_t> strides = {1, 1, 1, 1},
                 std::string padding = "SAME") {
  return {{"strides", strides}, {"padding", padding}, {"fused_ops", std::move(fused_ops)}};
}

// sin-shaped values in [-1, 1], different per `phase`.
template <class T>
tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(std::sin(0.37 * i + phase));
  return tensor::from_vector<T>(v, shape);
}

// The reference epilogue, written out plainly: x * scale[c] + offset[c], then the activation.
template <class T>
tensor reference(const tensor& conv, const std::vector<double>& scale,
                 const std::vector<double>& offset, const std::string& act, double alpha = 0.2,
                 const std::vector<double>& prelu = {}) {
  tensor out = conv.deep_copy();
  T* y = out.data<T>();
  const int64_t c = static_cast<int64_t>(offset.size());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    const int64_t ch = i % c;
    double v = static_cast<double>(y[i]) * scale[ch] + offset[ch];
    if (act == "Relu") v = std::max(v, 0.0);
    if (act == "Relu6") v = std::min(std::max(v, 0.0), 6.0);
    if (act == "Elu") v = v > 0 ? v : std::exp(v) - 1;
    if (act == "LeakyRelu") v = v > 0 ? v : alpha * v;
    if (act == "Sigmoid") v = 1 / (1 + std::exp(-v));
    if (act == "Tanh") v = std::tanh(v);
    if (act == "Prelu") v = v > 0 ? v : prelu[ch] * v;
    y[i] = static_cast<T>(v);
  }
  return out;
}

std::vector<double> values_of(const tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t.type() == dtype::float32 ? t.data<float>()[i] : t.data<double>()[i];
  return v;
}

}  // namespace

TEST_CASE("_FusedConv2D by hand: a 1x1 filter, bias and each activation") {
  // input [1,2,2,1] = 1..4, filter [1,1,1,2] = (1, -1): conv = (1,-1, 2,-2, 3,-3, 4,-4);
  // bias (3, 1) gives (4,0, 5,-1, 6,-2, 7,-3).
  const tensor x = tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  const tensor w = tensor::from_vector<float>({1, -1}, {1, 1, 1, 2});
  const tensor b = tensor::from_vector<float>({3, 1});
  const auto fused = [&](strings ops) {
    return run("_FusedConv2D", {x, w, b}, conv_attrs(std::move(ops))).at(0);
  };
  check_tensor(fused({"BiasAdd"}), {1, 2, 2, 2}, std::vector<float>{4, 0, 5, -1, 6, -2, 7, -3});
  check_tensor(fused({"BiasAdd", "Relu"}), {1, 2, 2, 2},
               std::vector<float>{4, 0, 5, 0, 6, 0, 7, 0});
  check_tensor(fused({"BiasAdd", "Relu6"}), {1, 2, 2, 2},
               std::vector<float>{4, 0, 5, 0, 6, 0, 6, 0});
  check_tensor(fused({"BiasAdd", "Elu"}), {1, 2, 2, 2},
               std::vector<float>{4, 0, 5, -0.63212056f, 6, -0.86466472f, 7, -0.95021293f});
  check_tensor(fused({"BiasAdd", "LeakyRelu"}), {1, 2, 2, 2},
               std::vector<float>{4, 0, 5, -0.2f, 6, -0.4f, 7, -0.6f});
  auto leaky = conv_attrs({"BiasAdd", "LeakyRelu"});
  leaky["leakyrelu_alpha"] = 0.5f;
  check_tensor(run("_FusedConv2D", {x, w, b}, leaky).at(0), {1, 2, 2, 2},
               std::vector<float>{4, 0, 5, -0.5f, 6, -1, 7, -1.5f});
  check_tensor(fused({"BiasAdd", "Sigmoid"}), {1, 2, 2, 2},
               std::vector<float>{0.98201379f, 0.5f, 0.99330715f, 0.26894142f, 0.99752738f,
                                  0.11920292f, 0.99908895f, 0.04742587f});
  // Prelu (TF.js): its alpha is the second arg, one slope per channel.
  auto prelu = conv_attrs({"BiasAdd", "Prelu"});
  check_tensor(run("_FusedConv2D", {x, w, b, tensor::from_vector<float>({0.1f, 0.25f})}, prelu)
                   .at(0),
               {1, 2, 2, 2}, std::vector<float>{4, 0, 5, -0.25f, 6, -0.5f, 7, -0.75f});
  check_tensor(run("_FusedConv2D", {x, w, b, tensor::scalar<float>(0.5f)}, prelu).at(0),
               {1, 2, 2, 2}, std::vector<float>{4, 0, 5, -0.5f, 6, -1, 7, -1.5f});
}

TEST_CASE("_FusedConv2D with FusedBatchNorm: (x - mean) * scale / sqrt(var + eps) + offset") {
  const tensor x = tensor::from_vector<double>({1, 2, 3, 4}, {1, 2, 2, 1});
  const tensor w = tensor::from_vector<double>({1, -1}, {1, 1, 1, 2});
  // Channel 0: (x - 1) * 2 / sqrt(3 + 1) + 0.5 = x - 0.5; channel 1: (-x - 0) * 1 / 1 - 1.
  const std::vector<tensor> args{tensor::from_vector<double>({2, 1}),
                                 tensor::from_vector<double>({0.5, -1}),
                                 tensor::from_vector<double>({1, 0}),
                                 tensor::from_vector<double>({3, 0.5})};
  auto a = conv_attrs({"FusedBatchNorm"});
  a["epsilon"] = 1.0f;
  a["padding"] = std::string("VALID");
  std::vector<tensor> in{x, w};
  in.insert(in.end(), args.begin(), args.end());
  // Channel 1's variance 0.5 + epsilon 1 = 1.5: -x / sqrt(1.5) - 1.
  const double r = 1 / std::sqrt(1.5);
  check_tensor(run("_FusedConv2D", in, a).at(0), {1, 2, 2, 2},
               std::vector<double>{0.5, -r - 1, 1.5, -2 * r - 1, 2.5, -3 * r - 1, 3.5, -4 * r - 1},
               1e-7);
  a["fused_ops"] = strings{"FusedBatchNorm", "Relu"};
  check_tensor(run("_FusedConv2D", in, a).at(0), {1, 2, 2, 2},
               std::vector<double>{0.5, 0, 1.5, 0, 2.5, 0, 3.5, 0}, 1e-7);
}

TEST_CASE("_FusedConv2D equals Conv2D, then BiasAdd, then the activation") {
  struct geometry {
    tensor_shape input, filter;
    std::vector<int64_t> strides;
    std::string padding;
  };
  // A strided 3x3, a pointwise 1x1, and one large enough for several tiles on several threads.
  const std::vector<geometry> cases{{{2, 7, 6, 3}, {3, 3, 3, 5}, {1, 2, 2, 1}, "SAME"},
                                    {{1, 5, 5, 4}, {1, 1, 4, 6}, {1, 1, 1, 1}, "VALID"},
                                    {{2, 40, 40, 8}, {3, 3, 8, 16}, {1, 1, 1, 1}, "SAME"}};
  for (const geometry& g : cases) {
    CAPTURE(g.input.to_string());
    const tensor x = wavy<float>(g.input, 0.1), w = wavy<float>(g.filter, 0.7);
    const int64_t c = g.filter.dim(3);
    const tensor b = wavy<float>({c}, 2.0);
    const tensor conv =
        run("Conv2D", {x, w}, {{"strides", g.strides}, {"padding", g.padding}}).at(0);
    const std::vector<double> ones(static_cast<size_t>(c), 1.0), bias = values_of(b);
    for (const char* act : {"", "Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"}) {
      CAPTURE(act);
      strings ops{"BiasAdd"};
      if (*act) ops.push_back(act);
      const tensor fused =
          run("_FusedConv2D", {x, w, b}, conv_attrs(ops, g.strides, g.padding)).at(0);
      check_tensor(fused, reference<float>(conv, ones, bias, act), 1e-5);
    }
  }
}

TEST_CASE("the fused depthwise convolutions: grappler's and TF.js's names alike") {
  const tensor x = wavy<double>({2, 6, 5, 3}, 0.3), w = wavy<double>({3, 3, 3, 2}, 1.3);
  const tensor b = wavy<double>({6}, 0.9);
  const attrs base{{"strides", std::vector<int64_t>{1, 2, 1, 1}}, {"padding", std::string("SAME")}};
  const tensor conv = run("DepthwiseConv2dNative", {x, w}, base).at(0);
  const std::vector<double> ones(6, 1.0), bias = values_of(b);
  for (const char* op : {"_FusedDepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) {
    for (const char* act : {"", "Relu", "Relu6", "Elu"}) {
      CAPTURE(op);
      CAPTURE(act);
      attrs a = base;
      a["fused_ops"] = *act ? strings{"BiasAdd", act} : strings{"BiasAdd"};
      check_tensor(run(op, {x, w, b}, a).at(0), reference<double>(conv, ones, bias, act), 1e-12);
    }
  }
  attrs a = base;
  a["fused_ops"] = strings{"BiasAdd", "Prelu"};
  const std::vector<double> slopes{0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  check_tensor(run("FusedDepthwiseConv2dNative",
                   {x, w, b, tensor::from_vector<double>(slopes, {1, 1, 1, 6})}, a)
                   .at(0),
               reference<double>(conv, ones, bias, "Prelu", 0.2, slopes), 1e-12);
}

TEST_CASE("unsupported fused_ops are refused naming the node, the op and the combination") {
  const tensor x = wavy<float>({1, 3, 3, 2}, 0), w = wavy<float>({1, 1, 2, 2}, 1);
  const tensor b = tensor::from_vector<float>({1, 2});
  check_error(run_kernel("_FusedConv2D", {x, w, b}, conv_attrs({"BiasAdd", "Softplus"})),
              "node 'test__FusedConv2D' (_FusedConv2D): fused_ops [BiasAdd, Softplus] is not "
              "supported by _FusedConv2D: it fuses [BiasAdd] or [FusedBatchNorm], optionally "
              "followed by one of Relu|Relu6|Elu|LeakyRelu|Sigmoid|Tanh|Prelu");
  auto unchecked = run_kernel_unchecked("_FusedConv2D", {x, w, b}, conv_attrs({"Relu"}));
  check_error(unchecked, "fused_ops [Relu] is not supported by _FusedConv2D");
  CHECK(unchecked.get_status().code() == error_code::unimplemented);
  check_error(run_kernel("_FusedConv2D", {x, w, b}, conv_attrs({"BiasAdd", "Relu", "Relu"})),
              "fused_ops [BiasAdd, Relu, Relu] is not supported");
  check_error(run_kernel("_FusedConv2D", {x, w, b, b}, conv_attrs({"BiasAdd"})),
              "fused_ops [BiasAdd] takes 1 args, but num_args is 2");
  check_error(run_kernel("_FusedConv2D", {x, w, tensor::from_vector<float>({1, 2, 3})},
                         conv_attrs({"BiasAdd"})),
              "bias (arg 0 of fused_ops [BiasAdd]) must be a vector of the output's 2 channels, "
              "got shape [3]");
  check_error(run_kernel_unchecked("_FusedConv2D", {x, w, tensor::from_vector<float>({1, 2, 3})},
                                   conv_attrs({"BiasAdd"})),
              "bias must be a vector of the output's 2 channels, got shape [3]");
  check_error(run_kernel_unchecked("_FusedConv2D", {x, w, b, tensor::from_vector<float>({1, 2, 3})},
                                   conv_attrs({"BiasAdd", "Prelu"})),
              "Prelu's alpha must be a scalar or hold one value per output channel (2), got "
              "shape [3]");
  auto nchw = conv_attrs({"BiasAdd"});
  nchw["data_format"] = std::string("NCHW");
  check_error(run_kernel_unchecked("_FusedConv2D", {wavy<float>({1, 2, 3, 3}, 0), w, b}, nchw),
              "NCHW");
}

// Not a test of correctness: times the fused kernel against Conv2D, BiasAdd and Relu run one
// after the other on a mid-sized layer. Run with --no-skip.
TEST_CASE("timing: _FusedConv2D against Conv2D + BiasAdd + Relu" * doctest::skip()) {
  const tensor x = wavy<float>({8, 56, 56, 64}, 0.1), w = wavy<float>({3, 3, 64, 64}, 0.7);
  const tensor b = wavy<float>({64}, 2.0);
  const attrs conv{{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"padding", std::string("SAME")}};
  const auto best_of = [](int rounds, const std::function<void()>& f) {
    double best = 1e30;
    for (int i = 0; i < rounds; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      best = std::min(best, std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double separate = best_of(5, [&] {
    const tensor y = run("Conv2D", {x, w}, conv).at(0);
    const tensor z = run("BiasAdd", {y, b}, {}).at(0);
    run("Relu", {z}, {});
  });
  const double fused =
      best_of(5, [&] { run("_FusedConv2D", {x, w, b}, conv_attrs({"BiasAdd", "Relu"})); });
  std::printf("Conv2D+BiasAdd+Relu %.1f ms, _FusedConv2D %.1f ms (ratio %.2f)\n", separate, fused,
              separate / fused);
}
