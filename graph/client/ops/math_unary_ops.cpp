#include "graph/client/ops/math_unary_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"
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

namespace ops {
namespace {

using ops_detail::unary;
using ops_detail::binary;

}  // namespace

output ceil(const scope& s, const output& x) { return unary(s, "Ceil", x); }
output round(const scope& s, const output& x) { return unary(s, "Round", x); }
output rint(const scope& s, const output& x) { return unary(s, "Rint", x); }
output log1p(const scope& s, const output& x) { return unary(s, "Log1p", x); }
output expm1(const scope& s, const output& x) { return unary(s, "Expm1", x); }
output sin(const scope& s, const output& x) { return unary(s, "Sin", x); }
output cos(const scope& s, const output& x) { return unary(s, "Cos", x); }
output tan(const scope& s, const output& x) { return unary(s, "Tan", x); }
output asin(const scope& s, const output& x) { return unary(s, "Asin", x); }
output acos(const scope& s, const output& x) { return unary(s, "Acos", x); }
output atan(const scope& s, const output& x) { return unary(s, "Atan", x); }
output sinh(const scope& s, const output& x) { return unary(s, "Sinh", x); }
output cosh(const scope& s, const output& x) { return unary(s, "Cosh", x); }
output asinh(const scope& s, const output& x) { return unary(s, "Asinh", x); }
output acosh(const scope& s, const output& x) { return unary(s, "Acosh", x); }
output atanh(const scope& s, const output& x) { return unary(s, "Atanh", x); }
output erf(const scope& s, const output& x) { return unary(s, "Erf", x); }
output erfc(const scope& s, const output& x) { return unary(s, "Erfc", x); }
output lgamma(const scope& s, const output& x) { return unary(s, "Lgamma", x); }
output digamma(const scope& s, const output& x) { return unary(s, "Digamma", x); }
output polygamma(const scope& s, const output& a, const output& x) {
  return binary(s, "Polygamma", a, x);
}
output inv(const scope& s, const output& x) { return unary(s, "Inv", x); }
output is_nan(const scope& s, const output& x) { return unary(s, "IsNan", x); }
output is_inf(const scope& s, const output& x) { return unary(s, "IsInf", x); }
output is_finite(const scope& s, const output& x) { return unary(s, "IsFinite", x); }
output logical_not(const scope& s, const output& x) { return unary(s, "LogicalNot", x); }
output rsqrt_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "RsqrtGrad", y, dy);
}
output sqrt_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "SqrtGrad", y, dy);
}
output reciprocal_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "ReciprocalGrad", y, dy);
}
output inv_grad(const scope& s, const output& y, const output& dy) {
  return binary(s, "InvGrad", y, dy);
}

}  // namespace ops
}  // namespace caflow
