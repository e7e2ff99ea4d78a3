#pragma once
// Matrix products.
//
//   auto y = ops::mat_mul(s, x, w, {.transpose_b = true});  // x * w^T
#include "graph/client/scope.hpp"

namespace caflow::ops {

struct mat_mul_attrs {
  bool transpose_a = false;
  bool transpose_b = false;
};

// The product of two rank-2 tensors of one dtype (float32, float64, int32, int64), each
// optionally transposed first; the inner dims must match.
output mat_mul(const scope& s, const output& a, const output& b, const mat_mul_attrs& attrs = {});

}  // namespace caflow::ops
