// The activations Relu6, Elu, Selu, Softplus, Softsign and LeakyRelu, and their *Grad ops:
// registrations.
#include "graph/ir/op_def.hpp"
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

}  // namespace caflow
