#pragma once
// More broadcasting binary element-wise ops, with TensorFlow 1.x names and semantics:
// truncating division and remainder, squared difference, atan2, the safe divisions and
// x*log(y), the remaining comparisons and the logical connectives. Kernels in
// kernels/cpu/cwise_binary_math.cpp and kernels/cpu/cwise_compare_logical.cpp.
#include "graph/client/ops/math_ops.hpp"

namespace caflow::ops {

// x / y; integers truncate toward zero, as C (TF's legacy Div). An integer divisor of zero
// fails the step.
output div(const scope& s, const output& x, const output& y);
// C's truncating remainder (fmod for floats): Mod(-7, 2) = -1. TruncateMod is the same op
// under its newer name. An integer divisor of zero fails the step.
output mod(const scope& s, const output& x, const output& y);
output truncate_mod(const scope& s, const output& x, const output& y);
// Integer division rounding toward zero, as C: TruncateDiv(-7, 2) = -3.
output truncate_div(const scope& s, const output& x, const output& y);
output squared_difference(const scope& s, const output& x, const output& y);  // (x - y)^2
output atan2(const scope& s, const output& y, const output& x);  // the angle of (x, y)
output div_no_nan(const scope& s, const output& x, const output& y);  // 0 where y == 0
output xlogy(const scope& s, const output& x, const output& y);  // 0 where x == 0, else x log y
output xdivy(const scope& s, const output& x, const output& y);  // 0 where x == 0, else x / y

output not_equal(const scope& s, const output& x, const output& y, const equal_attrs& attrs = {});
output greater_equal(const scope& s, const output& x, const output& y);
output less_equal(const scope& s, const output& x, const output& y);
output logical_and(const scope& s, const output& x, const output& y);
output logical_or(const scope& s, const output& x, const output& y);

}  // namespace caflow::ops
