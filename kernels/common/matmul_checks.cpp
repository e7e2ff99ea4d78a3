#include "kernels/common/matmul_checks.hpp"

namespace caflow {

status read_matmul_params(const kernel_construction& c, matmul_params* p) {
  CAFLOW_RETURN_IF_ERROR(c.get_attr("transpose_a", &p->transpose_a));
  return c.get_attr("transpose_b", &p->transpose_b);
}

status_or<matmul_dims> matmul_dims_for(const matmul_params& p, const tensor_shape& a,
                                       const tensor_shape& b) {
  const tensor_shape* operands[] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    if (operands[i]->rank() != 2)
      return errors::invalid_argument("In[", i, "] is not a matrix. Instead it has shape ",
                                      operands[i]->to_string());
  }
  matmul_dims d;
  d.m = a.dim(p.transpose_a ? 1 : 0);
  d.k = a.dim(p.transpose_a ? 0 : 1);
  d.n = b.dim(p.transpose_b ? 0 : 1);
  const int64_t k_b = b.dim(p.transpose_b ? 1 : 0);
  if (d.k != k_b)
    return errors::invalid_argument("matrix size-incompatible: In[0]: ", a.to_string(),
                                    ", In[1]: ", b.to_string(), ", transpose_a=", p.transpose_a,
                                    ", transpose_b=", p.transpose_b);
  return d;
}

}  // namespace caflow
