#pragma once
// Batched matrix products, TensorFlow's BatchMatMul and BatchMatMulV2: x [..., M, K] times
// y [..., K, N] gives [..., M, N], one product per batch index. V2 broadcasts the batch dims
// numpy-style ([2, 1, M, K] with [3, K, N] gives [2, 3, M, N]); V1 requires them equal.
// adj_x / adj_y use a matrix's (conjugate) transpose. Kernel in
// kernels/cpu/batch_matmul_kernel.cpp.
#include "graph/client/scope.hpp"

namespace caflow::ops {

struct batch_mat_mul_attrs {
  bool adj_x = false;
  bool adj_y = false;
};
output batch_mat_mul_v2(const scope& s, const output& x, const output& y,
                        const batch_mat_mul_attrs& attrs = {});
output batch_mat_mul(const scope& s, const output& x, const output& y,
                     const batch_mat_mul_attrs& attrs = {});

}  // namespace caflow::ops
