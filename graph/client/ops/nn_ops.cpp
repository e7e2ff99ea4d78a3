#include "graph/client/ops/nn_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"

namespace caflow {
namespace ops {
namespace {

using ops_detail::unary;
using ops_detail::binary;

cross_entropy_result loss(const scope& s, const char* op, const output& features,
                          const output& labels) {
  operation n = node_builder(s, op).input(features).input(labels).finalize();
  return {n.out(0), n.out(1)};
}

}  // namespace

output bias_add(const scope& s, const output& value, const output& bias,
                const bias_add_attrs& attrs) {
  return node_builder(s, "BiasAdd").input(value).input(bias)
      .attr("data_format", attrs.data_format).finalize().out();
}
output bias_add_grad(const scope& s, const output& out_backprop, const bias_add_attrs& attrs) {
  return node_builder(s, "BiasAddGrad").input(out_backprop)
      .attr("data_format", attrs.data_format).finalize().out();
}

output relu(const scope& s, const output& features) { return unary(s, "Relu", features); }
output relu_grad(const scope& s, const output& gradients, const output& features) {
  return binary(s, "ReluGrad", gradients, features);
}
output sigmoid(const scope& s, const output& x) { return unary(s, "Sigmoid", x); }
output sigmoid_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "SigmoidGrad", y, dy);
}
output tanh(const scope& s, const output& x) { return unary(s, "Tanh", x); }
output tanh_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "TanhGrad", y, dy);
}

output softmax(const scope& s, const output& logits) { return unary(s, "Softmax", logits); }
output log_softmax(const scope& s, const output& logits) {
  return unary(s, "LogSoftmax", logits);
}

cross_entropy_result softmax_cross_entropy_with_logits(const scope& s, const output& features,
                                                       const output& labels) {
  return loss(s, "SoftmaxCrossEntropyWithLogits", features, labels);
}
cross_entropy_result sparse_softmax_cross_entropy_with_logits(const scope& s,
                                                              const output& features,
                                                              const output& labels) {
  return loss(s, "SparseSoftmaxCrossEntropyWithLogits", features, labels);
}

output l2_loss(const scope& s, const output& t) { return unary(s, "L2Loss", t); }
output stop_gradient(const scope& s, const output& input) {
  return unary(s, "StopGradient", input);
}

broadcast_gradient_args_result broadcast_gradient_args(const scope& s, const output& s0,
                                                       const output& s1) {
  operation n = node_builder(s, "BroadcastGradientArgs").input(s0).input(s1).finalize();
  return {n.out(0), n.out(1)};
}

}  // namespace ops
}  // namespace caflow
