#include "graph/client/ops/nn_activation_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"

namespace caflow {
namespace ops {
namespace {

using ops_detail::unary;
using ops_detail::binary;

}  // namespace

output relu6(const scope& s, const output& features) { return unary(s, "Relu6", features); }
output elu(const scope& s, const output& features) { return unary(s, "Elu", features); }
output selu(const scope& s, const output& features) { return unary(s, "Selu", features); }
output softplus(const scope& s, const output& features) { return unary(s, "Softplus", features); }
output softsign(const scope& s, const output& features) { return unary(s, "Softsign", features); }
output leaky_relu(const scope& s, const output& features, const leaky_relu_attrs& attrs) {
  return node_builder(s, "LeakyRelu").input(features).attr("alpha", attrs.alpha).finalize().out();
}

output prelu(const scope& s, const output& x, const output& alpha) {
  return node_builder(s, "Prelu").input(x).input(alpha).finalize().out();
}

output relu6_grad(const scope& s, const output& gradients, const output& features) {
  return binary(s, "Relu6Grad", gradients, features);
}
output elu_grad(const scope& s, const output& gradients, const output& outputs) {
  return binary(s, "EluGrad", gradients, outputs);
}
output selu_grad(const scope& s, const output& gradients, const output& outputs) {
  return binary(s, "SeluGrad", gradients, outputs);
}
output softplus_grad(const scope& s, const output& gradients, const output& features) {
  return binary(s, "SoftplusGrad", gradients, features);
}
output softsign_grad(const scope& s, const output& gradients, const output& features) {
  return binary(s, "SoftsignGrad", gradients, features);
}
output leaky_relu_grad(const scope& s, const output& gradients, const output& features,
                       const leaky_relu_attrs& attrs) {
  return node_builder(s, "LeakyReluGrad").input(gradients).input(features)
      .attr("alpha", attrs.alpha).finalize().out();
}

}  // namespace ops
}  // namespace caflow
