#pragma once
// Cumulative sums and products along one axis (TensorFlow's Cumsum and Cumprod):
//
//   auto running = ops::cumsum(s, x, 1);                                  // [a, a+b, a+b+c]
//   auto before = ops::cumprod(s, x, 0, {.exclusive = true});             // [1, a, a*b]
//   auto after = ops::cumprod(s, x, 0, {.exclusive = true, .reverse = true});  // [b*c, c, 1]
//
// The axis is an int32 or int64 scalar in [-rank, rank); the input needs rank >= 1.
#include "graph/client/scope.hpp"

namespace caflow::ops {

struct cumulative_attrs {
  bool exclusive = false;  // element i covers the elements before i, not up to and including it
  bool reverse = false;    // accumulate from the end of the axis towards its start
};

output cumsum(const scope& s, const output& x, const output& axis,
              const cumulative_attrs& attrs = {});
output cumsum(const scope& s, const output& x, int axis, const cumulative_attrs& attrs = {});
output cumprod(const scope& s, const output& x, const output& axis,
               const cumulative_attrs& attrs = {});
output cumprod(const scope& s, const output& x, int axis, const cumulative_attrs& attrs = {});

}  // namespace caflow::ops
