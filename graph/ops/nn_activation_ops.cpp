// The activations Relu6, Elu, Selu, Softplus, Softsign and LeakyRelu, and their *Grad ops, and
// Prelu: registrations.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// Prelu: alpha broadcasts to x, and the output has x's shape.
status prelu_shape(shape_context& c) {
  auto both = broadcast_shapes(c.input(0), c.input(1));
  if (!both.ok() || !both->compatible_with(c.input(0)))
    return c.error("alpha of shape ", c.input(1).to_string(), " must broadcast to x of shape ",
                   c.input(0).to_string());
  c.set_output(0, *both);
  return {};
}

}  // namespace

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

// The TF.js converter's parametric ReLU: x > 0 ? x : alpha * x, alpha broadcasting to x (one
// slope per channel, usually). TensorFlow itself has no such op.
// TF.js's converter writes Prelu (not a core TF op) without T; its graphs are float32.
CAFLOW_REGISTER_OP("Prelu").input("x: T").input("alpha: T").output("output: T")
    .attr("T: {float32, float64} = float32").cheap().set_shape_fn(prelu_shape);
#undef CAFLOW_ACTIVATION_GRAD_OP

}  // namespace caflow
