#include "graph/client/ops/training_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

output apply_gradient_descent(const scope& s, const output& var, const output& alpha,
                              const output& delta, const apply_gradient_descent_attrs& attrs) {
  return node_builder(s, "ApplyGradientDescent").input(var).input(alpha).input(delta)
      .attr("use_locking", attrs.use_locking).finalize().out();
}

output apply_momentum(const scope& s, const output& var, const output& accum, const output& lr,
                      const output& grad, const output& momentum,
                      const apply_momentum_attrs& attrs) {
  return node_builder(s, "ApplyMomentum").input(var).input(accum).input(lr).input(grad)
      .input(momentum).attr("use_locking", attrs.use_locking)
      .attr("use_nesterov", attrs.use_nesterov).finalize().out();
}

output apply_adam(const scope& s, const output& var, const output& m, const output& v,
                  const output& beta1_power, const output& beta2_power, const output& lr,
                  const output& beta1, const output& beta2, const output& epsilon,
                  const output& grad, const apply_adam_attrs& attrs) {
  return node_builder(s, "ApplyAdam").input(var).input(m).input(v).input(beta1_power)
      .input(beta2_power).input(lr).input(beta1).input(beta2).input(epsilon).input(grad)
      .attr("use_locking", attrs.use_locking).attr("use_nesterov", attrs.use_nesterov)
      .finalize().out();
}

output apply_adagrad(const scope& s, const output& var, const output& accum, const output& lr,
                     const output& grad, const apply_adagrad_attrs& attrs) {
  return node_builder(s, "ApplyAdagrad").input(var).input(accum).input(lr).input(grad)
      .attr("use_locking", attrs.use_locking).attr("update_slots", attrs.update_slots)
      .finalize().out();
}

output apply_rms_prop(const scope& s, const output& var, const output& ms, const output& mom,
                      const output& lr, const output& rho, const output& momentum,
                      const output& epsilon, const output& grad,
                      const apply_rms_prop_attrs& attrs) {
  return node_builder(s, "ApplyRMSProp").input(var).input(ms).input(mom).input(lr).input(rho)
      .input(momentum).input(epsilon).input(grad).attr("use_locking", attrs.use_locking)
      .finalize().out();
}

output sparse_apply_gradient_descent(const scope& s, const output& var, const output& alpha,
                                     const output& grad, const output& indices,
                                     const apply_gradient_descent_attrs& attrs) {
  return node_builder(s, "SparseApplyGradientDescent").input(var).input(alpha).input(grad)
      .input(indices).attr("use_locking", attrs.use_locking).finalize().out();
}

output sparse_apply_rms_prop(const scope& s, const output& var, const output& ms,
                             const output& mom, const output& lr, const output& rho,
                             const output& momentum, const output& epsilon, const output& grad,
                             const output& indices, const apply_rms_prop_attrs& attrs) {
  return node_builder(s, "SparseApplyRMSProp").input(var).input(ms).input(mom).input(lr)
      .input(rho).input(momentum).input(epsilon).input(grad).input(indices)
      .attr("use_locking", attrs.use_locking).finalize().out();
}

output sparse_apply_momentum(const scope& s, const output& var, const output& accum,
                             const output& lr, const output& grad, const output& indices,
                             const output& momentum, const apply_momentum_attrs& attrs) {
  return node_builder(s, "SparseApplyMomentum").input(var).input(accum).input(lr).input(grad)
      .input(indices).input(momentum).attr("use_locking", attrs.use_locking)
      .attr("use_nesterov", attrs.use_nesterov).finalize().out();
}

output sparse_apply_adagrad(const scope& s, const output& var, const output& accum,
                            const output& lr, const output& grad, const output& indices,
                            const apply_adagrad_attrs& attrs) {
  return node_builder(s, "SparseApplyAdagrad").input(var).input(accum).input(lr).input(grad)
      .input(indices).attr("use_locking", attrs.use_locking)
      .attr("update_slots", attrs.update_slots).finalize().out();
}

output sparse_apply_ftrl(const scope& s, const output& var, const output& accum,
                         const output& linear, const output& grad, const output& indices,
                         const output& lr, const output& l1, const output& l2,
                         const output& lr_power, const sparse_apply_ftrl_attrs& attrs) {
  return node_builder(s, "SparseApplyFtrl").input(var).input(accum).input(linear).input(grad)
      .input(indices).input(lr).input(l1).input(l2).input(lr_power)
      .attr("use_locking", attrs.use_locking).finalize().out();
}

}  // namespace ops
}  // namespace caflow
