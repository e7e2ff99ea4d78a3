// Conv2D, its backprops and the pooling ops on the GPU (cuDNN) against the CPU kernels on
// random inputs, plus small hand-checked cases for SAME's asymmetric padding, which cuDNN's
// legacy API cannot express directly and the kernels pad by hand. The convolutions run with
// cuDNN's backend engines on (the default) and off (CAFLOW_CUDNN_ENGINES=0).
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "test_util/gpu_test_util.hpp"

#ifdef CAFLOW_HAVE_CUDA
#include "kernels/gpu/window_plan.hpp"
#endif

namespace caflow::testing {
namespace {

using attr_map = std::map<std::string, attr_value>;

attr_map conv_attrs(std::vector<int> strides, const char* padding) {
  return {{"T", dtype::float32}, {"strides", std::move(strides)}, {"padding", padding}};
}

attr_map pool_attrs(std::vector<int> ksize, std::vector<int> strides, const char* padding) {
  return {{"T", dtype::float32},
          {"ksize", std::move(ksize)},
          {"strides", std::move(strides)},
          {"padding", padding}};
}

tensor sizes_of(const tensor_shape& s) {
  std::vector<int32_t> v;
  for (int i = 0; i < s.rank(); ++i) v.push_back(static_cast<int32_t>(s.dim(i)));
  return vec32(v);
}

// The output shape of the CPU's forward op, for the gradients' random out_backprop.
tensor_shape cpu_output_shape(const std::string& op, const std::vector<tensor>& inputs,
                              const attr_map& attrs) {
  auto out = run_kernel(op, inputs, attrs);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0).shape();
}

// All three convolution kernels for one input, filter and attrs.
void check_conv(device& gpu, const tensor_shape& input_shape, const tensor_shape& filter_shape,
                const attr_map& attrs, uint32_t seed, double tol) {
  CAPTURE(input_shape.to_string());
  CAPTURE(filter_shape.to_string());
  const tensor x = random_tensor<float>(input_shape, -1, 1, seed);
  const tensor w = random_tensor<float>(filter_shape, -1, 1, seed + 1);
  check_gpu_matches_cpu(gpu, "Conv2D", {x, w}, attrs, tol);
  const tensor dy =
      random_tensor<float>(cpu_output_shape("Conv2D", {x, w}, attrs), -1, 1, seed + 2);
  check_gpu_matches_cpu(gpu, "Conv2DBackpropInput", {sizes_of(input_shape), w, dy}, attrs, tol);
  check_gpu_matches_cpu(gpu, "Conv2DBackpropFilter", {x, sizes_of(filter_shape), dy}, attrs, tol);
}

// Both kernels of max or average pooling for one input and attrs.
void check_pool(device& gpu, const tensor_shape& input_shape, const attr_map& attrs,
                uint32_t seed) {
  CAPTURE(input_shape.to_string());
  const tensor x = random_tensor<float>(input_shape, -1, 1, seed);
  check_gpu_matches_cpu(gpu, "MaxPool", {x}, attrs);
  check_gpu_matches_cpu(gpu, "AvgPool", {x}, attrs);
  auto y = run_kernel("MaxPool", {x}, attrs);
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  const tensor dy = random_tensor<float>(y->at(0).shape(), -1, 1, seed + 1);
  check_gpu_matches_cpu(gpu, "MaxPoolGrad", {x, y->at(0), dy}, attrs);
  check_gpu_matches_cpu(gpu, "AvgPoolGrad", {sizes_of(input_shape), dy}, attrs);
}

#ifdef CAFLOW_HAVE_CUDA
// The padding plan is host arithmetic: these cases run without a GPU.

// A convolution over `in` rows with a window of k rows (one column, so the columns need no
// padding), resolved as the kernels resolve it.
conv2d_geometry rows_geometry(int64_t in, int64_t k, int64_t stride, conv_padding padding,
                              int64_t before = 0, int64_t after = 0) {
  conv2d_params p;
  p.padding = padding;
  p.stride_rows = stride;
  p.explicit_pads = {before, after, 0, 0};
  auto g = conv2d_geometry_for(p, tensor_shape{2, in, 1, 3}, tensor_shape{k, 1, 3, 4});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return *g;
}

TEST_CASE("The padding plan splits TensorFlow's padding into cuDNN's and a padded copy") {
  struct plan_case {
    int64_t in, k, stride;
    conv_padding padding;
    int64_t before, after;  // EXPLICIT's
    gpu::dim_padding want;
  };
  using enum conv_padding;
  const plan_case cases[] = {
      {3, 2, 1, same, 0, 0, {0, 0, 1}},       // pad_total 1: all after, by the copy
      {6, 3, 2, same, 0, 0, {0, 0, 1}},       // 3 windows at 0, 2, 4: pad_total 1, after
      {7, 3, 2, same, 0, 0, {1, 0, 0}},       // 4 windows at -1, 1, 3, 5: 1 each side
      {28, 5, 1, same, 0, 0, {2, 0, 0}},      // the CNN's convolutions: symmetric
      {28, 2, 2, same, 0, 0, {0, 0, 0}},      // the CNN's pools: no padding
      {8, 3, 2, valid, 0, 0, {0, 0, 0}},      // row 7 is unused: cuDNN drops it too
      {7, 3, 2, explicit_, 3, 0, {0, 3, 0}},  // 4 windows at -3, -1, 1, 3; row 6 unused
      {5, 3, 1, explicit_, 1, 3, {1, 0, 2}},  // 1 each side by cuDNN, 2 more after
  };
  for (const plan_case& c : cases) {
    CAPTURE(c.in);
    CAPTURE(c.k);
    CAPTURE(c.stride);
    const gpu::window_plan plan =
        gpu::plan_window(rows_geometry(c.in, c.k, c.stride, c.padding, c.before, c.after));
    CHECK(plan.rows.cudnn == c.want.cudnn);
    CHECK(plan.rows.extra_before == c.want.extra_before);
    CHECK(plan.rows.extra_after == c.want.extra_after);
    CHECK(plan.padded.rows == c.in + c.want.extra_before + c.want.extra_after);
    CHECK(plan.needs_copy() == (c.want.extra_before + c.want.extra_after > 0));
    CHECK(plan.cols.cudnn + plan.cols.extra_before + plan.cols.extra_after == 0);
  }
}

TEST_CASE("Over every small geometry the plan gives TensorFlow's window starts and count") {
  int checked = 0;
  for (int64_t in = 1; in <= 12; ++in) {
    for (int64_t k = 1; k <= 6; ++k) {
      for (int64_t stride = 1; stride <= 4; ++stride) {
        for (int64_t before = 0; before <= 3; ++before) {
          for (int64_t after = 0; after <= 3; ++after) {
            for (conv_padding padding :
                 {conv_padding::valid, conv_padding::same, conv_padding::explicit_}) {
              if (padding != conv_padding::explicit_ && (before > 0 || after > 0)) continue;
              conv2d_params p;
              p.padding = padding;
              p.stride_rows = stride;
              p.explicit_pads = {before, after, 0, 0};
              auto g = conv2d_geometry_for(p, tensor_shape{1, in, 1, 1}, tensor_shape{k, 1, 1, 1});
              if (!g.ok() || g->out_rows == 0) continue;
              CAPTURE(in);
              CAPTURE(k);
              CAPTURE(stride);
              CAPTURE(before);
              CAPTURE(after);
              const gpu::dim_padding d = gpu::plan_window(*g).rows;
              REQUIRE(d.cudnn >= 0);
              REQUIRE(d.extra_before >= 0);
              REQUIRE(d.extra_after >= 0);
              // cuDNN's first window starts at -(cudnn + extra_before) in the input's rows.
              CHECK(d.cudnn + d.extra_before == g->pad_top);
              // cuDNN's window count over the padded copy.
              const int64_t frame = in + d.extra_before + d.extra_after + 2 * d.cudnn;
              CHECK((frame - k) / stride + 1 == g->out_rows);
              ++checked;
            }
          }
        }
      }
    }
  }
  CHECK(checked > 1000);
}
#endif  // CAFLOW_HAVE_CUDA

TEST_CASE("Conv2D with SAME padding puts the odd zero after the input, as TensorFlow") {
  CAFLOW_REQUIRE_GPU(gpu);
  // 1 2 3 / 4 5 6 / 7 8 9 under a 2x2 filter of ones: pad_total 1 is all after, so each output
  // sums the 2x2 block starting at its own position, zeros beyond the last row and column.
  auto y = run_gpu_kernel(*gpu, "Conv2D",
                          {iota<float>({1, 3, 3, 1}, 1), tensor::filled<float>({2, 2, 1, 1}, 1)},
                          conv_attrs({1, 1, 1, 1}, "SAME"));
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  check_tensor<float>(y->at(0), {1, 3, 3, 1}, {12, 16, 9, 24, 28, 15, 15, 17, 9});
  // With stride 2 the two windows start at 0 and 2: rows {0,1} and {2, padding}.
  y = run_gpu_kernel(*gpu, "Conv2D",
                     {iota<float>({1, 3, 3, 1}, 1), tensor::filled<float>({2, 2, 1, 1}, 1)},
                     conv_attrs({1, 2, 2, 1}, "SAME"));
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  check_tensor<float>(y->at(0), {1, 2, 2, 1}, {12, 9, 15, 9});
}

TEST_CASE("Pooling with SAME padding: -inf for the maximum, the inside count for the mean") {
  CAFLOW_REQUIRE_GPU(gpu);
  const attr_map same = pool_attrs({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  // Negative values: a zero pad would win a maximum.
  tensor x = iota<float>({1, 3, 3, 1}, 1);
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = -x.data<float>()[i];
  auto y = run_gpu_kernel(*gpu, "MaxPool", {x}, same);
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  check_tensor<float>(y->at(0), {1, 2, 2, 1}, {-1, -3, -7, -9});
  y = run_gpu_kernel(*gpu, "AvgPool", {iota<float>({1, 3, 3, 1}, 1)}, same);
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  check_tensor<float>(y->at(0), {1, 2, 2, 1}, {3, 4.5f, 7.5f, 9});
  // The corner window holds only element 9: all of its gradient goes there.
  y = run_gpu_kernel(*gpu, "AvgPoolGrad",
                     {vec32({1, 3, 3, 1}), tensor::filled<float>({1, 2, 2, 1}, 4)}, same);
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  check_tensor<float>(y->at(0), {1, 3, 3, 1}, {1, 1, 2, 1, 1, 2, 2, 2, 4});
}

TEST_CASE("Conv2D and its backprops match the CPU: VALID, SAME and EXPLICIT, strides 1 to 3") {
  CAFLOW_REQUIRE_GPU(gpu);
  uint32_t seed = 100;
  const std::vector<std::pair<tensor_shape, tensor_shape>> shapes = {
      {{2, 7, 9, 3}, {3, 3, 3, 4}},  // odd sizes, square filter
      {{2, 8, 6, 3}, {2, 2, 3, 5}},  // even filter: SAME pads only after
      {{1, 9, 7, 2}, {4, 5, 2, 3}},  // non-square filter
      {{3, 5, 5, 4}, {1, 1, 4, 6}},  // pointwise
      {{1, 4, 4, 2}, {4, 4, 2, 2}},  // filter as large as the input
  };
  for (const auto& [input, filter] : shapes) {
    for (const char* padding : {"VALID", "SAME"}) {
      for (std::vector<int> strides :
           {std::vector<int>{1, 1, 1, 1}, {1, 2, 2, 1}, {1, 2, 1, 1}, {1, 3, 3, 1}}) {
        CAPTURE(padding);
        CAPTURE(strides[1]);
        CAPTURE(strides[2]);
        check_conv(*gpu, input, filter, conv_attrs(strides, padding), seed += 3, 1e-4);
      }
    }
  }
  attr_map explicit_pads = conv_attrs({1, 2, 1, 1}, "EXPLICIT");
  explicit_pads["explicit_paddings"] = std::vector<int>{0, 0, 3, 0, 1, 2, 0, 0};
  check_conv(*gpu, {2, 7, 6, 3}, {3, 3, 3, 2}, explicit_pads, seed += 3, 1e-4);
}

TEST_CASE("Conv2D and its backprops match the CPU on the CNN's layers") {
  CAFLOW_REQUIRE_GPU(gpu);
  // apps/train/model.cpp: 5x5 SAME convolutions on 28x28x1, then 14x14x32 after a pool.
  const attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  check_conv(*gpu, {16, 28, 28, 1}, {5, 5, 1, 32}, same, 200, 1e-3);
  check_conv(*gpu, {16, 14, 14, 32}, {5, 5, 32, 64}, same, 210, 1e-3);
}

// CAFLOW_CUDNN_ENGINES set to `value` (null: unset) for the scope, then as it was. Kernels read
// it when they are made, and run_gpu_kernel makes one per call.
class scoped_engines_switch {
 public:
  explicit scoped_engines_switch(const char* value) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~scoped_engines_switch() { set(old_ ? old_->c_str() : nullptr); }

 private:
  static constexpr const char* name = "CAFLOW_CUDNN_ENGINES";
  static void set(const char* value) {
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  std::optional<std::string> old_;
};

// std::clog's lines while it lives (the kernels say there when the engine path gives way).
class clog_capture {
 public:
  clog_capture() : old_(std::clog.rdbuf(captured_.rdbuf())) {}
  ~clog_capture() { std::clog.rdbuf(old_); }
  std::string text() const { return captured_.str(); }

 private:
  std::ostringstream captured_;
  std::streambuf* old_;
};

// `op` on the GPU with the engine path on and then off, each against the CPU. With
// `engines_required` the engine path must not have given way to the legacy algorithms.
void check_both_paths(device& gpu, const std::string& op, const std::vector<tensor>& inputs,
                      const attr_map& attrs, double tol, bool engines_required) {
  CAPTURE(op);
  auto cpu = run_kernel(op, inputs, attrs);
  REQUIRE_MESSAGE(cpu.ok(), cpu.get_status().to_string());
  for (const char* value : {static_cast<const char*>(nullptr), "0"}) {
    const std::string engines = value ? value : "(unset)";
    CAPTURE(engines);
    scoped_engines_switch env(value);
    clog_capture log;
    auto on_gpu = run_gpu_kernel(gpu, op, inputs, attrs);
    REQUIRE_MESSAGE(on_gpu.ok(), on_gpu.get_status().to_string());
    REQUIRE(on_gpu->size() == 1);
    check_tensor(on_gpu->at(0), cpu->at(0), tol);
    // Engines off: nothing to give way, nothing said.
    if (value != nullptr || engines_required) CHECK_MESSAGE(log.text().empty(), log.text());
  }
}

// The three convolution kernels through both paths.
void check_conv_both_paths(device& gpu, const tensor_shape& input_shape,
                           const tensor_shape& filter_shape, const attr_map& attrs, uint32_t seed,
                           double tol, bool engines_required) {
  CAPTURE(input_shape.to_string());
  CAPTURE(filter_shape.to_string());
  const tensor x = random_tensor<float>(input_shape, -1, 1, seed);
  const tensor w = random_tensor<float>(filter_shape, -1, 1, seed + 1);
  check_both_paths(gpu, "Conv2D", {x, w}, attrs, tol, engines_required);
  const tensor dy =
      random_tensor<float>(cpu_output_shape("Conv2D", {x, w}, attrs), -1, 1, seed + 2);
  check_both_paths(gpu, "Conv2DBackpropInput", {sizes_of(input_shape), w, dy}, attrs, tol,
                   engines_required);
  check_both_paths(gpu, "Conv2DBackpropFilter", {x, sizes_of(filter_shape), dy}, attrs, tol,
                   engines_required);
}

TEST_CASE("Conv2D and its backprops match the CPU with cuDNN's engines on and off") {
  CAFLOW_REQUIRE_GPU(gpu);
  struct conv_case {
    tensor_shape input, filter;
    std::vector<int> strides;
    const char* padding;
  };
  const conv_case cases[] = {
      // SAME, asymmetric: pad_total 1, all after (stride 2), and 3 = 1 before + 2 after.
      {{2, 7, 7, 3}, {2, 2, 3, 5}, {1, 2, 2, 1}, "SAME"},
      {{2, 9, 8, 3}, {4, 4, 3, 4}, {1, 1, 1, 1}, "SAME"},
      {{2, 9, 8, 3}, {4, 4, 3, 4}, {1, 2, 2, 1}, "SAME"},
      // VALID, stride 1, and stride 2 leaving the last row and column unused.
      {{2, 8, 9, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "VALID"},
      {{2, 8, 10, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, "VALID"},
      // A single input channel and a single output channel.
      {{3, 10, 10, 1}, {5, 5, 1, 8}, {1, 1, 1, 1}, "SAME"},
      {{3, 10, 10, 4}, {3, 3, 4, 1}, {1, 2, 2, 1}, "VALID"},
  };
  uint32_t seed = 700;
  for (const conv_case& c : cases) {
    CAPTURE(c.padding);
    CAPTURE(c.strides[1]);
    check_conv_both_paths(*gpu, c.input, c.filter, conv_attrs(c.strides, c.padding), seed += 3,
                          1e-4, false);
  }
  attr_map explicit_pads = conv_attrs({1, 2, 1, 1}, "EXPLICIT");
  explicit_pads["explicit_paddings"] = std::vector<int>{0, 0, 3, 0, 1, 2, 0, 0};
  check_conv_both_paths(*gpu, {2, 7, 6, 3}, {3, 3, 3, 2}, explicit_pads, seed += 3, 1e-4, false);
}

TEST_CASE("On the CNN's layers an engine is found, and both paths match the CPU") {
  CAFLOW_REQUIRE_GPU(gpu);
  // The benchmark's layers, smaller batches: some cuDNN engine must run each of them (no
  // fallback line on std::clog), in full float32 (the CPU's values to rounding).
  const attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  check_conv_both_paths(*gpu, {8, 28, 28, 1}, {5, 5, 1, 32}, same, 800, 1e-3, true);
  check_conv_both_paths(*gpu, {8, 14, 14, 32}, {5, 5, 32, 64}, same, 810, 1e-3, true);
  check_conv_both_paths(*gpu, {4, 14, 14, 64}, {3, 3, 64, 64}, same, 820, 1e-3, true);
}

TEST_CASE("MaxPool, AvgPool and their gradients match the CPU") {
  CAFLOW_REQUIRE_GPU(gpu);
  uint32_t seed = 300;
  for (const tensor_shape& input :
       {tensor_shape{2, 7, 9, 3}, tensor_shape{1, 8, 8, 5}, tensor_shape{3, 5, 6, 1}}) {
    for (const char* padding : {"VALID", "SAME"}) {
      CAPTURE(padding);
      check_pool(*gpu, input, pool_attrs({1, 2, 2, 1}, {1, 2, 2, 1}, padding), seed += 2);
      check_pool(*gpu, input, pool_attrs({1, 3, 3, 1}, {1, 2, 2, 1}, padding), seed += 2);
      check_pool(*gpu, input, pool_attrs({1, 3, 3, 1}, {1, 1, 1, 1}, padding), seed += 2);
      check_pool(*gpu, input, pool_attrs({1, 2, 3, 1}, {1, 1, 2, 1}, padding), seed += 2);
    }
  }
  // The CNN's 2x2 SAME pools.
  const attr_map cnn = pool_attrs({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  check_pool(*gpu, {16, 28, 28, 32}, cnn, 400);
  check_pool(*gpu, {16, 14, 14, 64}, cnn, 402);
}

TEST_CASE("Empty inputs give empty or zero outputs") {
  CAFLOW_REQUIRE_GPU(gpu);
  const attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  // No batch.
  check_conv(*gpu, {0, 5, 5, 2}, {3, 3, 2, 4}, same, 500, 1e-5);
  // No input channels: every output is an empty sum.
  check_gpu_matches_cpu(
      *gpu, "Conv2D", {tensor(dtype::float32, {2, 4, 4, 0}), tensor(dtype::float32, {3, 3, 0, 2})},
      same);
  // No output channels: nothing flows back to the input.
  check_gpu_matches_cpu(*gpu, "Conv2DBackpropInput",
                        {vec32({2, 4, 4, 3}), tensor(dtype::float32, {3, 3, 3, 0}),
                         tensor(dtype::float32, {2, 4, 4, 0})},
                        same);
  // A window larger than the input leaves no VALID output: the gradients are zero.
  const attr_map valid = pool_attrs({1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  const tensor x = random_tensor<float>({1, 2, 2, 3}, -1, 1, 501);
  const tensor none(dtype::float32, {1, 0, 0, 3});
  check_gpu_matches_cpu(*gpu, "MaxPool", {x}, valid);
  check_gpu_matches_cpu(*gpu, "MaxPoolGrad", {x, none, none}, valid);
  check_gpu_matches_cpu(*gpu, "AvgPoolGrad", {vec32({1, 2, 2, 3}), none}, valid);
}

TEST_CASE("Bad inputs fail as on the CPU") {
  CAFLOW_REQUIRE_GPU(gpu);
  const attr_map same = conv_attrs({1, 1, 1, 1}, "SAME");
  const tensor x = random_tensor<float>({1, 5, 5, 3}, -1, 1, 600);
  const tensor w = random_tensor<float>({3, 3, 2, 4}, -1, 1, 601);
  check_error(run_gpu_kernel(*gpu, "Conv2D", {x, w}, same),
              "input and filter must have the same depth: 3 vs 2");
  check_error(
      run_gpu_kernel(*gpu, "Conv2D", {random_tensor<float>({5, 5, 3}, -1, 1, 602), w}, same),
      "input must be 4-dimensional, got shape [5,5,3]");
  const tensor w3 = random_tensor<float>({3, 3, 3, 4}, -1, 1, 603);
  check_error(run_gpu_kernel(
                  *gpu, "Conv2DBackpropInput",
                  {vec32({1, 5, 5, 3}), w3, random_tensor<float>({1, 4, 4, 4}, -1, 1, 604)}, same),
              "out_backprop has shape [1,4,4,4] but input_sizes [1,5,5,3]");
  check_error(
      run_gpu_kernel(*gpu, "Conv2DBackpropFilter",
                     {x, vec32({3, 3, 3}), random_tensor<float>({1, 5, 5, 4}, -1, 1, 605)}, same),
      "filter_sizes must be an int32 vector of 4 sizes");
  attr_map nchw = same;
  nchw["data_format"] = "NCHW";
  check_error(run_gpu_kernel(*gpu, "Conv2D", {x, w3}, nchw),
              "the GPU kernel supports only data_format NHWC");
  const attr_map pool = pool_attrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  check_error(run_gpu_kernel(*gpu, "MaxPoolGrad",
                             {x, random_tensor<float>({1, 3, 3, 3}, -1, 1, 606),
                              random_tensor<float>({1, 2, 2, 3}, -1, 1, 607)},
                             pool),
              "orig_output has shape [1,3,3,3] but pooling orig_input [1,5,5,3] gives [1,2,2,3]");
  check_error(
      run_gpu_kernel(*gpu, "AvgPoolGrad",
                     {vec32({1, 5, 5, 3}), random_tensor<float>({1, 3, 2, 3}, -1, 1, 608)}, pool),
      "grad has shape [1,3,2,3] but pooling an input of shape [1,5,5,3] gives [1,2,2,3]");
}

}  // namespace
}  // namespace caflow::testing
