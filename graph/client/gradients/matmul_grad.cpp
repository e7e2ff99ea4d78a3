// Gradient of MatMul: z = op(a) op(b), where op transposes when the attr says so.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/matmul_ops.hpp"

namespace caflow {
namespace {

// With g = dL/dz, dL/da = g op(b)^T and dL/db = op(a)^T g, rearranged so that no transposed
// copy is made: each case is one MatMul per input with the right transpose flags.
status mat_mul_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dz,
                    std::vector<output>* dx) {
  bool ta = false, tb = false;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("transpose_a", &ta));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("transpose_b", &tb));
  const output &a = op.inputs[0], &b = op.inputs[1], &g = dz[0];
  if (!ta && !tb) {  // z = a b
    *dx = {ops::mat_mul(s, g, b, {.transpose_b = true}),
           ops::mat_mul(s, a, g, {.transpose_a = true})};
  } else if (!ta && tb) {  // z = a b^T
    *dx = {ops::mat_mul(s, g, b), ops::mat_mul(s, g, a, {.transpose_a = true})};
  } else if (ta && !tb) {  // z = a^T b
    *dx = {ops::mat_mul(s, b, g, {.transpose_b = true}), ops::mat_mul(s, a, g)};
  } else {  // z = a^T b^T
    *dx = {ops::mat_mul(s, b, g, {.transpose_a = true, .transpose_b = true}),
           ops::mat_mul(s, g, a, {.transpose_a = true, .transpose_b = true})};
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("MatMul", mat_mul_grad);

}  // namespace caflow
