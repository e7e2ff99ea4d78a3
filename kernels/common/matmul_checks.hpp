#pragma once
// MatMul's attrs and operand shapes, checked once for every device's kernel: a kernel that
// gets a matmul_dims may compute C[m, n] = op(A)[m, k] op(B)[k, n] without looking again.
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

struct matmul_params {
  bool transpose_a = false, transpose_b = false;
};

// Reads transpose_a and transpose_b into *p.
status read_matmul_params(const kernel_construction& c, matmul_params* p);

struct matmul_dims {
  int64_t m = 0, k = 0, n = 0;
  tensor_shape output_shape() const { return {m, n}; }
};

// The product's dims for operands of these shapes; an error when either is not a matrix
// (naming In[0] or In[1]) or the contracted dims differ (naming both shapes and transposes).
status_or<matmul_dims> matmul_dims_for(const matmul_params& p, const tensor_shape& a,
                                       const tensor_shape& b);

}  // namespace caflow
