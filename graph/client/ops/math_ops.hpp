#pragma once
// Element-wise math: arithmetic, unary functions, comparisons, Select and Cast, with
// TensorFlow's names and semantics. Binary ops broadcast numpy-style: [2,3] with [3],
// [2,1] with [1,3], a scalar with anything.
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// Binary arithmetic, broadcasting.
output add(const scope& s, const output& x, const output& y);
output add_v2(const scope& s, const output& x, const output& y);
output sub(const scope& s, const output& x, const output& y);
output mul(const scope& s, const output& x, const output& y);
output real_div(const scope& s, const output& x, const output& y);
output maximum(const scope& s, const output& x, const output& y);
output minimum(const scope& s, const output& x, const output& y);
output pow(const scope& s, const output& x, const output& y);
// x // y and x % y rounded toward negative infinity (Python's, TF's floordiv and floormod).
output floor_div(const scope& s, const output& x, const output& y);
output floor_mod(const scope& s, const output& x, const output& y);

// The sum of one or more tensors of one shape and dtype.
output add_n(const scope& s, const std::vector<output>& inputs);

// Unary, shape-preserving.
output neg(const scope& s, const output& x);
output square(const scope& s, const output& x);
output sqrt(const scope& s, const output& x);
output rsqrt(const scope& s, const output& x);
output exp(const scope& s, const output& x);
output log(const scope& s, const output& x);
output abs(const scope& s, const output& x);
output sign(const scope& s, const output& x);
output reciprocal(const scope& s, const output& x);
output floor(const scope& s, const output& x);

// Comparisons, broadcasting, with a bool output.
struct equal_attrs {
  // When false, shapes that cannot broadcast compare as a scalar `false` instead of failing.
  bool incompatible_shape_error = true;
};
output equal(const scope& s, const output& x, const output& y, const equal_attrs& attrs = {});
output greater(const scope& s, const output& x, const output& y);
output less(const scope& s, const output& x, const output& y);

// Picks from `t` where `condition` is true, else from `e` (TF1 Select): condition is a scalar,
// has t's shape, or is a vector whose length is t's first dimension (selecting whole rows).
output select(const scope& s, const output& condition, const output& t, const output& e);
// Picks from `t` where `condition` is true, else from `e`, with all three broadcasting
// together (SelectV2, TF >= 1.15; tf.where in TF 2): condition [3,1], t [1,4], e [] give [3,4].
output select_v2(const scope& s, const output& condition, const output& t, const output& e);

struct cast_attrs {
  // Accepted for TensorFlow compatibility; it only matters for 16-bit floats, which caflow
  // does not have.
  bool truncate = false;
};
// Converts to `type`. To bool: nonzero is true. From floating point to an integer type:
// truncation toward zero, saturating at the type's limits, NaN giving 0.
output cast(const scope& s, const output& x, dtype type, const cast_attrs& attrs = {});

}  // namespace caflow::ops
