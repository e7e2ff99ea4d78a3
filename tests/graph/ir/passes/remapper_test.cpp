#include "graph/ir/passes/remapper.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/graph_def_lookup.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::count_op;
using caflow::testing::find_node;
using caflow::testing::check_tensor;

namespace {

using name_set = std::set<std::string, std::less<>>;

pass_stats run_remapper(graph_def& g, name_set keep = {}) {
  return testing::run_pass<remapper_pass>(g, std::move(keep));
}

tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.31 * i + phase));
  return tensor::from_vector<float>(v, shape);
}

// x [2,6,6,3] -> Conv2D -> BiasAdd -> Relu -> "conv_out"; "conv_out" -> MatMul (after a
// reshape) -> BiasAdd -> Sigmoid -> "dense_out"; a depthwise branch -> BiasAdd -> "dw_out".
struct model {
  scope root = scope::new_root();
  output x, conv_bias, conv_out, dense_bias, dense_out, dw_out;

  model() {
    x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                         {.shape = partial_shape{-1, 6, 6, 3}});
    auto w = ops::constant(root.with_op_name("w"), wavy({3, 3, 3, 4}, 0.5));
    auto conv = ops::conv2d(root.with_op_name("conv"), x, w, {.strides = {1, 2, 2, 1}});
    conv_bias = ops::bias_add(root.with_op_name("conv_bias"), conv,
                              ops::constant(root, wavy({4}, 1.0)));
    conv_out = ops::relu(root.with_op_name("conv_out"), conv_bias);
    auto flat = ops::reshape(root, conv_out, std::vector<int64_t>{-1, 36});
    auto wd = ops::constant(root.with_op_name("wd"), wavy({36, 5}, 2.0));
    auto dense = ops::mat_mul(root.with_op_name("dense"), flat, wd);
    dense_bias = ops::bias_add(root.with_op_name("dense_bias"), dense,
                               ops::constant(root, wavy({5}, 3.0)));
    dense_out = ops::sigmoid(root.with_op_name("dense_out"), dense_bias);
    auto dw = ops::depthwise_conv2d_native(root.with_op_name("dw"), x,
                                           ops::constant(root, wavy({2, 2, 3, 2}, 4.0)));
    dw_out = ops::bias_add(root.with_op_name("dw_out"), dw, ops::constant(root, wavy({6}, 5.0)));
    REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  }
};

std::vector<tensor> run_model(const model& m, const std::vector<output>& fetches, bool fuse,
                              std::string* optimization = nullptr) {
  session_options opts;
  if (!fuse) opts.optimizer.disabled = {"remapper"};
  session s(m.root, opts);
  auto out = s.run({{m.x, wavy({2, 6, 6, 3}, 0.25)}}, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  if (optimization) *optimization = s.stats().last_optimization;
  return *out;
}

}  // namespace

TEST_CASE("remapper fuses Conv2D, DepthwiseConv2dNative and MatMul with BiasAdd and activation") {
  model m;
  graph_def g = m.root.to_graph_def();
  const pass_stats stats = run_remapper(g, {"x", "conv_out", "dense_out", "dw_out"});
  CHECK(stats.removed == 5);  // conv, conv_bias, dense, dense_bias, dw
  for (const char* gone : {"conv", "conv_bias", "dense", "dense_bias", "dw"})
    CHECK_MESSAGE(find_node(g, gone) == nullptr, gone);
  CHECK(count_op(g, "Conv2D") == 0);
  CHECK(count_op(g, "BiasAdd") == 0);
  CHECK(count_op(g, "MatMul") == 0);

  const node_def* conv = find_node(g, "conv_out");
  REQUIRE(conv != nullptr);
  CHECK(conv->op == "_FusedConv2D");
  CHECK(conv->inputs == std::vector<std::string>{"x", "w", "Const"});
  CHECK(conv->attrs.at("fused_ops") == attr_value(std::vector<std::string>{"BiasAdd", "Relu"}));
  CHECK(conv->attrs.at("num_args") == attr_value(int64_t{1}));
  CHECK(conv->attrs.at("strides") == attr_value(std::vector<int64_t>{1, 2, 2, 1}));
  CHECK(conv->attrs.at("T") == attr_value(dtype::float32));

  const node_def* dense = find_node(g, "dense_out");
  REQUIRE(dense != nullptr);
  CHECK(dense->op == "_FusedMatMul");
  CHECK(dense->attrs.at("fused_ops") ==
        attr_value(std::vector<std::string>{"BiasAdd", "Sigmoid"}));
  CHECK(dense->attrs.at("transpose_b") == attr_value(false));

  const node_def* dw = find_node(g, "dw_out");
  REQUIRE(dw != nullptr);
  CHECK(dw->op == "_FusedDepthwiseConv2dNative");
  CHECK(dw->attrs.at("fused_ops") == attr_value(std::vector<std::string>{"BiasAdd"}));
}

TEST_CASE("a session with the remapper gives the results of one without") {
  model m;
  std::string optimization;
  const auto fused = run_model(m, {m.conv_out, m.dense_out, m.dw_out}, true, &optimization);
  const auto plain = run_model(m, {m.conv_out, m.dense_out, m.dw_out}, false);
  REQUIRE(optimization.find("remapper: ") != std::string::npos);
  CHECK(optimization.substr(optimization.find("remapper: ")).find("(5 removed)") !=
        std::string::npos);
  REQUIRE(fused.size() == plain.size());
  for (size_t i = 0; i < fused.size(); ++i) check_tensor(fused[i], plain[i], 1e-6);
}

TEST_CASE("remapper leaves a chain alone whose intermediate output is fetched or read elsewhere") {
  model m;
  graph_def g = m.root.to_graph_def();
  // conv_bias fetched: Conv2D + BiasAdd still fuse (conv_bias keeps its name), the Relu stays.
  run_remapper(g, {"x", "conv_bias", "conv_out", "dense_out", "dw_out"});
  REQUIRE(find_node(g, "conv_bias") != nullptr);
  CHECK(find_node(g, "conv_bias")->op == "_FusedConv2D");
  CHECK(find_node(g, "conv_bias")->attrs.at("fused_ops") ==
        attr_value(std::vector<std::string>{"BiasAdd"}));
  CHECK(find_node(g, "conv_out")->op == "Relu");
  // conv fetched: nothing of that chain fuses.
  graph_def g2 = m.root.to_graph_def();
  run_remapper(g2, {"x", "conv", "conv_out", "dense_out", "dw_out"});
  CHECK(find_node(g2, "conv")->op == "Conv2D");
  CHECK(find_node(g2, "conv_bias")->op == "BiasAdd");
  // And through a session: fetching the BiasAdd keeps it, with the same values.
  std::string optimization;
  const auto fused = run_model(m, {m.conv_bias, m.conv_out}, true, &optimization);
  const auto plain = run_model(m, {m.conv_bias, m.conv_out}, false);
  REQUIRE(optimization.find("remapper: ") != std::string::npos);
  // Only the Conv2D goes.
  CHECK(optimization.substr(optimization.find("remapper: ")).find("(1 removed)") !=
        std::string::npos);
  check_tensor(fused[0], plain[0], 1e-6);
  check_tensor(fused[1], plain[1], 1e-6);
}

TEST_CASE("remapper fuses only on the CPU and only what nothing else reads") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                            {.shape = partial_shape{1, 4, 4, 2}});
  auto w = ops::constant(root.with_op_name("w"), wavy({1, 1, 2, 2}, 0));
  auto b = ops::constant(root.with_op_name("b"), wavy({2}, 1));
  // On a GPU: left alone.
  auto gpu = root.with_device("/job:localhost/replica:0/task:0/device:GPU:0");
  auto gpu_conv = ops::conv2d(gpu.with_op_name("gpu_conv"), x, w);
  ops::relu(gpu.with_op_name("gpu_out"), ops::bias_add(gpu.with_op_name("gpu_bias"), gpu_conv, b));
  // On a named CPU: fused.
  auto cpu = root.with_device("/job:localhost/replica:0/task:0/device:CPU:0");
  auto cpu_conv = ops::conv2d(cpu.with_op_name("cpu_conv"), x, w);
  ops::relu(cpu.with_op_name("cpu_out"), ops::bias_add(cpu.with_op_name("cpu_bias"), cpu_conv, b));
  // The BiasAdd read twice: Conv2D + BiasAdd fuse, neither activation does.
  auto shared = ops::bias_add(root.with_op_name("shared_bias"),
                              ops::conv2d(root.with_op_name("shared_conv"), x, w), b);
  ops::relu(root.with_op_name("shared_relu"), shared);
  ops::tanh(root.with_op_name("shared_tanh"), shared);
  // A MatMul read by its BiasAdd and by another op: left alone.
  auto m = ops::mat_mul(root.with_op_name("mm"), ops::reshape(root, x, std::vector<int64_t>{4, 8}),
                        ops::constant(root, wavy({8, 3}, 2)));
  ops::bias_add(root.with_op_name("mm_bias"), m, ops::constant(root, wavy({3}, 3)));
  ops::square(root.with_op_name("mm_square"), m);
  REQUIRE(root.ok());
  graph_def g = root.to_graph_def();
  run_remapper(g);
  CHECK(find_node(g, "gpu_out")->op == "Relu");
  CHECK(find_node(g, "gpu_conv")->op == "Conv2D");
  CHECK(find_node(g, "cpu_out")->op == "_FusedConv2D");
  CHECK(find_node(g, "cpu_out")->device == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(find_node(g, "shared_bias")->op == "_FusedConv2D");
  CHECK(find_node(g, "shared_relu")->op == "Relu");
  CHECK(find_node(g, "shared_tanh")->op == "Tanh");
  CHECK(find_node(g, "mm")->op == "MatMul");
  CHECK(find_node(g, "mm_bias")->op == "BiasAdd");
}

TEST_CASE("remapper carries control inputs and LeakyRelu's alpha") {
  auto root = scope::new_root();
  auto x =
      ops::placeholder(root.with_op_name("x"), dtype::float64, {.shape = partial_shape{2, 3}});
  auto gate = ops::no_op(root.with_op_name("gate"));
  auto m = ops::mat_mul(root.with_op_name("mm").with_control_dependencies({gate}), x,
                        ops::constant(root, std::vector<double>{1, 2, 3, 4, 5, 6}, {3, 2}));
  auto b = ops::bias_add(root.with_op_name("bias"), m,
                         ops::constant(root, std::vector<double>{-30, 0}, {2}));
  auto y = ops::leaky_relu(root.with_op_name("y"), b, {.alpha = 0.5f});
  REQUIRE(root.ok());
  graph_def g = root.to_graph_def();
  run_remapper(g, {"x", "y"});
  const node_def* f = find_node(g, "y");
  REQUIRE(f != nullptr);
  CHECK(f->op == "_FusedMatMul");
  CHECK(f->attrs.at("leakyrelu_alpha") == attr_value(0.5f));
  CHECK(std::find(f->inputs.begin(), f->inputs.end(), "^gate") != f->inputs.end());
  // x = [[1, 0, 1], [0, 1, 0]]: x W = [[6, 8], [3, 4]], + bias = [[-24, 8], [-27, 4]].
  session s(root);
  auto out = s.run({{x, tensor::from_vector<double>({1, 0, 1, 0, 1, 0}, {2, 3})}}, {y});
  REQUIRE(out.ok());
  check_tensor(out->at(0), {2, 2}, std::vector<double>{-12, 8, -13.5, 4});
}
