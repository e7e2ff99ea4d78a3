// The ops:: client functions of the NN ops: node, attrs, output types and inferred shapes,
// and the shape functions' errors at graph construction.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"

using namespace caflow;

namespace {

node_def find(const scope& s, const std::string& name) {
  auto n = s.find_node(name);
  REQUIRE_MESSAGE(n.has_value(), "no node ", name);
  return *n;
}

output placeholder(const scope& s, dtype t, partial_shape shape) {
  return ops::placeholder(s, t, {.shape = std::move(shape)});
}

void require_ok(const scope& s) { REQUIRE_MESSAGE(s.ok(), s.get_status().to_string()); }

void check_scope_error(const scope& s, const std::string& needle) {
  REQUIRE_FALSE(s.ok());
  const std::string message = s.get_status().message();
  CHECK_MESSAGE(message.find(needle) != std::string::npos, message);
}

}  // namespace

TEST_CASE("activations keep shape and dtype; their gradients merge the two shapes") {
  using unary_fn = std::function<output(const scope&, const output&)>;
  for (const auto& [op, fn] : std::vector<std::pair<std::string, unary_fn>>{
           {"Relu", ops::relu}, {"Sigmoid", ops::sigmoid}, {"Tanh", ops::tanh},
           {"Softmax", ops::softmax}, {"LogSoftmax", ops::log_softmax},
           {"StopGradient", ops::stop_gradient}}) {
    CAPTURE(op);
    auto root = scope::new_root();
    auto x = placeholder(root, dtype::float64, partial_shape{-1, 10});
    auto y = fn(root, x);
    require_ok(root);
    CHECK(y.type == dtype::float64);
    CHECK(root.shape_of(y) == partial_shape{-1, 10});
    const node_def n = find(root, y.node);
    CHECK(n.op == op);
    CHECK(n.attrs.at("T") == attr_value(dtype::float64));
  }
  using binary_fn = std::function<output(const scope&, const output&, const output&)>;
  for (const auto& [op, fn] : std::vector<std::pair<std::string, binary_fn>>{
           {"ReluGrad", ops::relu_grad}, {"SigmoidGrad", ops::sigmoid_grad},
           {"TanhGrad", ops::tanh_grad}}) {
    CAPTURE(op);
    auto root = scope::new_root();
    auto a = placeholder(root, dtype::float32, partial_shape{-1, 3});
    auto b = placeholder(root, dtype::float32, partial_shape{4, -1});
    auto z = fn(root, a, b);
    require_ok(root);
    CHECK(root.shape_of(z) == partial_shape{4, 3});
    CHECK(find(root, z.node).inputs == std::vector<std::string>{a.node, b.node});
    fn(root, a, placeholder(root, dtype::float32, partial_shape{4, 2}));
    check_scope_error(root, "inputs must have one shape");
  }
}

TEST_CASE("bias_add and bias_add_grad infer shapes and check the bias") {
  auto root = scope::new_root();
  auto x = placeholder(root, dtype::float32, partial_shape{-1, 5, -1});
  auto b = placeholder(root, dtype::float32, partial_shape{7});
  auto y = ops::bias_add(root, x, b);
  auto g = ops::bias_add_grad(root, y);
  require_ok(root);
  CHECK(root.shape_of(y) == partial_shape{-1, 5, 7});
  CHECK(root.shape_of(g) == partial_shape{7});
  CHECK(find(root, y.node).attrs.at("data_format") == attr_value(std::string("NHWC")));
  // NCHW: the bias runs along dimension 1, at graph construction.
  auto nchw = ops::bias_add(root, x, placeholder(root, dtype::float32, partial_shape{5}),
                            {.data_format = "NCHW"});
  auto nchw_grad = ops::bias_add_grad(root, nchw, {.data_format = "NCHW"});
  require_ok(root);
  CHECK(root.shape_of(nchw) == partial_shape{-1, 5, -1});
  CHECK(root.shape_of(nchw_grad) == partial_shape{5});
  CHECK(find(root, nchw_grad.node).attrs.at("data_format") == attr_value(std::string("NCHW")));
  ops::bias_add(root, placeholder(root, dtype::float32, partial_shape{2, 3}),
                placeholder(root, dtype::float32, partial_shape{4}));
  check_scope_error(root, "bias of shape [4] must have as many elements as dimension 1 of value "
                          "of shape [2,3]");
}

TEST_CASE("bias_add refuses a vector value and an unknown data_format") {
  auto root = scope::new_root();
  ops::bias_add(root, placeholder(root, dtype::float32, partial_shape{3}),
                placeholder(root, dtype::float32, partial_shape{3}));
  check_scope_error(root, "value must have rank at least 2, got shape [3]");
  auto other = scope::new_root();
  ops::bias_add_grad(other, placeholder(other, dtype::float32, partial_shape{2, 3}),
                     {.data_format = "CHWN"});
  check_scope_error(other, "data_format must be \"NHWC\" or \"NCHW\", got \"CHWN\"");
}

TEST_CASE("the cross-entropy functions return loss [batch] and backprop [batch, classes]") {
  auto root = scope::new_root();
  auto logits = placeholder(root, dtype::float32, partial_shape{-1, 10});
  auto onehot = placeholder(root, dtype::float32, partial_shape{32, -1});
  auto xent = ops::softmax_cross_entropy_with_logits(root, logits, onehot);
  require_ok(root);
  CHECK(xent.loss.node == xent.backprop.node);
  CHECK(xent.loss.index == 0);
  CHECK(xent.backprop.index == 1);
  CHECK(xent.loss.type == dtype::float32);
  CHECK(root.shape_of(xent.loss) == partial_shape{32});
  CHECK(root.shape_of(xent.backprop) == partial_shape{32, 10});

  auto labels = placeholder(root, dtype::int32, partial_shape{-1});
  auto sparse = ops::sparse_softmax_cross_entropy_with_logits(root, logits, labels);
  require_ok(root);
  CHECK(find(root, sparse.loss.node).attrs.at("Tlabels") == attr_value(dtype::int32));
  CHECK(root.shape_of(sparse.loss) == partial_shape{-1});
  CHECK(root.shape_of(sparse.backprop) == partial_shape{-1, 10});
  auto fixed = placeholder(root, dtype::int64, partial_shape{8});
  auto sparse8 = ops::sparse_softmax_cross_entropy_with_logits(root, logits, fixed);
  require_ok(root);
  CHECK(root.shape_of(sparse8.backprop) == partial_shape{8, 10});

  ops::sparse_softmax_cross_entropy_with_logits(
      root, placeholder(root, dtype::float32, partial_shape{4, 10}), fixed);
  check_scope_error(root, "labels of shape [8] must have one entry per row of features of shape "
                          "[4,10]");
}

TEST_CASE("cross-entropy refuses float labels for the sparse op and mismatched dense labels") {
  auto root = scope::new_root();
  auto logits = placeholder(root, dtype::float32, partial_shape{2, 3});
  ops::softmax_cross_entropy_with_logits(root, logits,
                                         placeholder(root, dtype::float32, partial_shape{2, 4}));
  check_scope_error(root, "features of shape [2,3] and labels of shape [2,4] must be "
                          "broadcastable");
  auto other = scope::new_root();
  ops::sparse_softmax_cross_entropy_with_logits(
      other, placeholder(other, dtype::float32, partial_shape{2, 3}),
      placeholder(other, dtype::float32, partial_shape{2}));
  check_scope_error(other, "Tlabels");
}

TEST_CASE("l2_loss is a scalar; broadcast_gradient_args knows its lengths from constants") {
  auto root = scope::new_root();
  auto l2 = ops::l2_loss(root, placeholder(root, dtype::float64, partial_shape{3, 4}));
  require_ok(root);
  CHECK(root.shape_of(l2) == partial_shape(tensor_shape{}));

  auto unknown = ops::broadcast_gradient_args(root, placeholder(root, dtype::int32, {-1}),
                                              placeholder(root, dtype::int32, {2}));
  require_ok(root);
  CHECK(unknown.r0.type == dtype::int32);
  CHECK(root.shape_of(unknown.r0) == partial_shape{-1});
  CHECK(root.shape_of(unknown.r1) == partial_shape{-1});
  auto known =
      ops::broadcast_gradient_args(root, ops::constant(root, std::vector<int64_t>{2, 3}, {2}),
                                   ops::constant(root, std::vector<int64_t>{1, 1}, {2}));
  require_ok(root);
  CHECK(known.r0.type == dtype::int64);
  CHECK(root.shape_of(known.r0) == partial_shape{0});
  CHECK(root.shape_of(known.r1) == partial_shape{2});
  ops::broadcast_gradient_args(root, ops::constant(root, std::vector<int32_t>{2, 3}, {2}),
                               ops::constant(root, std::vector<int32_t>{2}, {1}));
  check_scope_error(root, "incompatible shapes for broadcasting: [2,3] vs. [2]");
}
