// Gradients of the unary math ops of graph/client/ops/math_unary_ops.hpp, following TF's
// math_grad.py: each is the incoming gradient times the derivative, written with ops.
#include <cmath>
#include <numbers>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/math_unary_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// For the many ops whose derivative is a function of x alone: dx = dz * d(x).
using derivative_fn = output (*)(const scope& s, const output& x);

template <derivative_fn D>
status chain(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::mul(s, dz[0], D(s, op.inputs[0]))};
  return {};
}

output one_plus(const scope& s, const output& x, const output& v) {
  return ops::add(s, grad::scalar(s, x.type, 1.0), v);
}

output d_log1p(const scope& s, const output& x) {
  return ops::reciprocal(s, one_plus(s, x, x));
}
output d_expm1(const scope& s, const output& x) { return ops::exp(s, x); }
output d_sin(const scope& s, const output& x) { return ops::cos(s, x); }
output d_cos(const scope& s, const output& x) { return ops::neg(s, ops::sin(s, x)); }
// sec^2 x.
output d_tan(const scope& s, const output& x) {
  return ops::square(s, ops::reciprocal(s, ops::cos(s, x)));
}
// 1 / sqrt(1 - x^2), and its negation for acos.
output d_asin(const scope& s, const output& x) {
  return ops::rsqrt(s, ops::sub(s, grad::scalar(s, x.type, 1.0), ops::square(s, x)));
}
output d_acos(const scope& s, const output& x) { return ops::neg(s, d_asin(s, x)); }
output d_atan(const scope& s, const output& x) {
  return ops::reciprocal(s, one_plus(s, x, ops::square(s, x)));
}
// 1 / sqrt(x^2 + 1) = 1 / cosh(asinh x); 1 / sqrt(x^2 - 1) = 1 / sinh(acosh x) (TF writes
// both in terms of the output; in terms of x they need no forward value).
output d_asinh(const scope& s, const output& x) {
  return ops::rsqrt(s, one_plus(s, x, ops::square(s, x)));
}
output d_acosh(const scope& s, const output& x) {
  return ops::rsqrt(s, ops::sub(s, ops::square(s, x), grad::scalar(s, x.type, 1.0)));
}
output d_atanh(const scope& s, const output& x) {
  return ops::reciprocal(s, ops::sub(s, grad::scalar(s, x.type, 1.0), ops::square(s, x)));
}
output d_sinh(const scope& s, const output& x) { return ops::cosh(s, x); }
output d_cosh(const scope& s, const output& x) { return ops::sinh(s, x); }
// 2 / sqrt(pi) * exp(-x^2), and its negation for erfc.
output d_erf(const scope& s, const output& x) {
  const output c = grad::scalar(s, x.type, 2.0 / std::sqrt(std::numbers::pi));
  return ops::mul(s, c, ops::exp(s, ops::neg(s, ops::square(s, x))));
}
output d_erfc(const scope& s, const output& x) { return ops::neg(s, d_erf(s, x)); }
output d_lgamma(const scope& s, const output& x) { return ops::digamma(s, x); }
output d_digamma(const scope& s, const output& x) {
  return ops::polygamma(s, ops::ones_like(s, x), x);
}

// Polygamma(a, x): d/dx = Polygamma(a + 1, x); `a` is an order, not differentiable.
status polygamma_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                      grad_list* dx) {
  const output &a = op.inputs[0], &x = op.inputs[1];
  const grad::unbroadcast u(s, a, x);
  const output next = ops::polygamma(s, ops::add(s, a, grad::scalar(s, a.type, 1.0)), x);
  *dx = {output{}, u.y_grad(ops::mul(s, dz[0], next))};
  return {};
}

// Inv's gradient through InvGrad(y, dz) = -dz y^2, as TF.
status inv_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::inv_grad(s, op.outputs[0], dz[0])};
  return {};
}

// RsqrtGrad(y, dy) = -0.5 dy y^3: d/dy = -1.5 dy y^2, d/d(dy) = RsqrtGrad(y, .).
status rsqrt_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                       grad_list* dx) {
  const output &y = op.inputs[0], &dy = op.inputs[1];
  const output c = grad::scalar(s, y.type, -1.5);
  *dx = {ops::mul(s, ops::mul(s, c, ops::mul(s, dz[0], dy)), ops::square(s, y)),
         ops::rsqrt_grad(s, y, dz[0])};
  return {};
}

// SqrtGrad(y, dy) = 0.5 dy / y: d/dy = -0.5 dy / y^2, d/d(dy) = SqrtGrad(y, .).
status sqrt_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                      grad_list* dx) {
  const output &y = op.inputs[0], &dy = op.inputs[1];
  const output c = grad::scalar(s, y.type, -0.5);
  *dx = {ops::real_div(s, ops::mul(s, c, ops::mul(s, dz[0], dy)), ops::square(s, y)),
         ops::sqrt_grad(s, y, dz[0])};
  return {};
}

// ReciprocalGrad(y, dy) = -dy y^2: d/dy = -2 dy y, d/d(dy) = ReciprocalGrad(y, .).
template <output (*Same)(const scope&, const output&, const output&)>
status reciprocal_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  const output &y = op.inputs[0], &dy = op.inputs[1];
  const output c = grad::scalar(s, y.type, -2.0);
  *dx = {ops::mul(s, ops::mul(s, c, ops::mul(s, dz[0], dy)), y), Same(s, y, dz[0])};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Log1p", chain<d_log1p>);
CAFLOW_REGISTER_GRADIENT("Expm1", chain<d_expm1>);
CAFLOW_REGISTER_GRADIENT("Sin", chain<d_sin>);
CAFLOW_REGISTER_GRADIENT("Cos", chain<d_cos>);
CAFLOW_REGISTER_GRADIENT("Tan", chain<d_tan>);
CAFLOW_REGISTER_GRADIENT("Asin", chain<d_asin>);
CAFLOW_REGISTER_GRADIENT("Acos", chain<d_acos>);
CAFLOW_REGISTER_GRADIENT("Atan", chain<d_atan>);
CAFLOW_REGISTER_GRADIENT("Asinh", chain<d_asinh>);
CAFLOW_REGISTER_GRADIENT("Acosh", chain<d_acosh>);
CAFLOW_REGISTER_GRADIENT("Atanh", chain<d_atanh>);
CAFLOW_REGISTER_GRADIENT("Sinh", chain<d_sinh>);
CAFLOW_REGISTER_GRADIENT("Cosh", chain<d_cosh>);
CAFLOW_REGISTER_GRADIENT("Erf", chain<d_erf>);
CAFLOW_REGISTER_GRADIENT("Erfc", chain<d_erfc>);
CAFLOW_REGISTER_GRADIENT("Lgamma", chain<d_lgamma>);
CAFLOW_REGISTER_GRADIENT("Digamma", chain<d_digamma>);
CAFLOW_REGISTER_GRADIENT("Polygamma", polygamma_grad);
CAFLOW_REGISTER_GRADIENT("Inv", inv_grad);
CAFLOW_REGISTER_GRADIENT("RsqrtGrad", rsqrt_grad_grad);
CAFLOW_REGISTER_GRADIENT("SqrtGrad", sqrt_grad_grad);
CAFLOW_REGISTER_GRADIENT("ReciprocalGrad", reciprocal_grad_grad<ops::reciprocal_grad>);
CAFLOW_REGISTER_GRADIENT("InvGrad", reciprocal_grad_grad<ops::inv_grad>);
// Piecewise constant, or not real-valued: no gradient, as TF.
CAFLOW_REGISTER_NO_GRADIENT("Ceil");
CAFLOW_REGISTER_NO_GRADIENT("Round");
CAFLOW_REGISTER_NO_GRADIENT("Rint");
CAFLOW_REGISTER_NO_GRADIENT("IsNan");
CAFLOW_REGISTER_NO_GRADIENT("IsInf");
CAFLOW_REGISTER_NO_GRADIENT("IsFinite");
CAFLOW_REGISTER_NO_GRADIENT("LogicalNot");

}  // namespace caflow
