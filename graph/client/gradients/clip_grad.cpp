// ClipByValue's gradient, as TF's: t's gradient passes where t was inside [min, max]; each
// bound gets the gradient of the elements it clipped, summed back to the bound's shape.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_binary_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

status clip_by_value_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dz,
                          std::vector<output>* dx) {
  const output &t = op.inputs[0], &lo = op.inputs[1], &hi = op.inputs[2];
  const output below = ops::less(s, t, lo), above = ops::greater(s, t, hi);
  const output zeros = ops::zeros_like(s, dz[0]);
  const output t_grad = ops::select(s, ops::logical_or(s, below, above), zeros, dz[0]);
  *dx = {t_grad, grad::unbroadcast(s, t, lo).y_grad(ops::select(s, below, dz[0], zeros)),
         grad::unbroadcast(s, t, hi).y_grad(ops::select(s, above, dz[0], zeros))};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("ClipByValue", clip_by_value_grad);

}  // namespace caflow
