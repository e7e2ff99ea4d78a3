#include "graph/client/ops/nn_activation_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

// TF's type lists restricted to caflow's dtypes; the CPU kernels cover exactly these.
#define CAFLOW_ACTIVATION_OP(name, types)                                                   \
  CAFLOW_REGISTER_OP(name).input("features: T").output("activations: T").attr("T: " types) \
      .cheap().set_shape_fn(shape_fns::unchanged)
#define CAFLOW_ACTIVATION_GRAD_OP(name, second, types)                                      \
  CAFLOW_REGISTER_OP(name).input("gradients: T").input(second ": T").output("backprops: T") \
      .attr("T: " types).cheap().set_shape_fn(shape_fns::merge_all_inputs)

CAFLOW_ACTIVATION_OP("Relu6", "{float32, float64, int32, int64}");
CAFLOW_ACTIVATION_GRAD_OP("Relu6Grad", "features", "{float32, float64, int32, int64}");
CAFLOW_ACTIVATION_OP("Elu", "{float32, float64}");
CAFLOW_ACTIVATION_GRAD_OP("EluGrad", "outputs", "{float32, float64}");
CAFLOW_ACTIVATION_OP("Selu", "{float32, float64}");
CAFLOW_ACTIVATION_GRAD_OP("SeluGrad", "outputs", "{float32, float64}");
CAFLOW_ACTIVATION_OP("Softplus", "{float32, float64}");
CAFLOW_ACTIVATION_GRAD_OP("SoftplusGrad", "features", "{float32, float64}");
CAFLOW_ACTIVATION_OP("Softsign", "{float32, float64}");
CAFLOW_ACTIVATION_GRAD_OP("SoftsignGrad", "features", "{float32, float64}");
CAFLOW_ACTIVATION_OP("LeakyRelu", "{float32, float64}").attr("alpha: float = 0.2");
CAFLOW_ACTIVATION_GRAD_OP("LeakyReluGrad", "features", "{float32, float64}")
    .attr("alpha: float = 0.2");
#undef CAFLOW_ACTIVATION_OP
#undef CAFLOW_ACTIVATION_GRAD_OP

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
