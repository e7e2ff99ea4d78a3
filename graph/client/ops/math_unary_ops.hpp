#pragma once
// More element-wise unary math, with TensorFlow 1.x names and semantics: rounding, logs and
// exponentials near zero, trigonometry, special functions, float classification, logical not,
// and the gradient helper ops TF's gradients use (RsqrtGrad, SqrtGrad, ReciprocalGrad, InvGrad).
// Shape-preserving; kernels in kernels/cpu/cwise_unary_math.cpp.
#include "graph/client/scope.hpp"

namespace caflow::ops {

output ceil(const scope& s, const output& x);
// Rounds half to even (banker's rounding), as TF: round(2.5) = 2, round(-0.5) = -0.
output round(const scope& s, const output& x);
output rint(const scope& s, const output& x);
output log1p(const scope& s, const output& x);  // log(1 + x), exact near 0
output expm1(const scope& s, const output& x);  // exp(x) - 1, exact near 0
output sin(const scope& s, const output& x);
output cos(const scope& s, const output& x);
output tan(const scope& s, const output& x);
output asin(const scope& s, const output& x);
output acos(const scope& s, const output& x);
output atan(const scope& s, const output& x);
output sinh(const scope& s, const output& x);
output cosh(const scope& s, const output& x);
output asinh(const scope& s, const output& x);
output acosh(const scope& s, const output& x);  // x >= 1
output atanh(const scope& s, const output& x);  // |x| < 1
output erf(const scope& s, const output& x);
output erfc(const scope& s, const output& x);
output lgamma(const scope& s, const output& x);   // log |Gamma(x)|
output digamma(const scope& s, const output& x);  // d/dx lgamma(x)
// Polygamma(a, x): the a-th derivative of digamma at x (a a non-negative integer value).
output polygamma(const scope& s, const output& a, const output& x);
// 1 / x under TF's older name.
output inv(const scope& s, const output& x);

// Float classification, bool outputs.
output is_nan(const scope& s, const output& x);
output is_inf(const scope& s, const output& x);
output is_finite(const scope& s, const output& x);

output logical_not(const scope& s, const output& x);

// Gradient helpers, in terms of the forward output y and the incoming gradient dy.
output rsqrt_grad(const scope& s, const output& y, const output& dy);       // dy * -0.5 y^3
output sqrt_grad(const scope& s, const output& y, const output& dy);        // dy * 0.5 / y
output reciprocal_grad(const scope& s, const output& y, const output& dy);  // -dy * y^2
output inv_grad(const scope& s, const output& y, const output& dy);         // as ReciprocalGrad

}  // namespace caflow::ops
