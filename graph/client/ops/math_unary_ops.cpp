#include "graph/client/ops/math_unary_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"

namespace caflow {
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
