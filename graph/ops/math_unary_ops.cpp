// The element-wise unary math ops beyond math_ops.cpp's (Ceil, Sin, Erf, ...), IsNan/IsInf/
// IsFinite, LogicalNot, Polygamma and the *Grad ops of Rsqrt, Sqrt, Reciprocal and Inv:
// registrations.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

// Type lists are TensorFlow's, restricted to caflow's dtypes. The CPU kernels
// (kernels/cpu/cwise_unary_math.cpp) cover exactly these.
#define CAFLOW_UNARY_MATH_OP(name, types)                                                \
  CAFLOW_REGISTER_OP(name).input("x: T").output("y: T").attr("T: " types).cheap()       \
      .set_shape_fn(shape_fns::unchanged)

CAFLOW_UNARY_MATH_OP("Ceil", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Round", "{float32, float64, int32, int64}");
CAFLOW_UNARY_MATH_OP("Rint", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Log1p", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Expm1", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Sin", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Cos", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Tan", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Asin", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Acos", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Atan", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Asinh", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Acosh", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Atanh", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Sinh", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Cosh", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Erf", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Erfc", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Lgamma", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Digamma", "{float32, float64}");
CAFLOW_UNARY_MATH_OP("Inv", "{float32, float64}");
#undef CAFLOW_UNARY_MATH_OP

#define CAFLOW_FLOAT_CLASS_OP(name)                                                         \
  CAFLOW_REGISTER_OP(name).input("x: T").output("y: bool").attr("T: {float32, float64}")   \
      .cheap().set_shape_fn(shape_fns::unchanged)
CAFLOW_FLOAT_CLASS_OP("IsNan");
CAFLOW_FLOAT_CLASS_OP("IsInf");
CAFLOW_FLOAT_CLASS_OP("IsFinite");
#undef CAFLOW_FLOAT_CLASS_OP

CAFLOW_REGISTER_OP("LogicalNot").input("x: bool").output("y: bool").cheap()
    .set_shape_fn(shape_fns::unchanged);

CAFLOW_REGISTER_OP("Polygamma").input("a: T").input("x: T").output("z: T")
    .attr("T: {float32, float64}").cheap().set_shape_fn(shape_fns::broadcast_binary);

#define CAFLOW_UNARY_GRAD_OP(name)                                                  \
  CAFLOW_REGISTER_OP(name).input("y: T").input("dy: T").output("z: T")              \
      .attr("T: {float32, float64}").cheap().set_shape_fn(shape_fns::merge_all_inputs)
CAFLOW_UNARY_GRAD_OP("RsqrtGrad");
CAFLOW_UNARY_GRAD_OP("SqrtGrad");
CAFLOW_UNARY_GRAD_OP("ReciprocalGrad");
CAFLOW_UNARY_GRAD_OP("InvGrad");
#undef CAFLOW_UNARY_GRAD_OP

}  // namespace caflow
