#pragma once
// Optimizer update ops, as in TensorFlow 1.x: each takes the variable (and its slot variables)
// by reference as its first inputs, updates them in place on the variable's own device (the
// placer keeps nodes joined by reference edges together) and returns the variable's reference.
//
//   auto w = ops::variable(root.with_op_name("w"), partial_shape{784, 10}, dtype::float32);
//   auto step = ops::apply_gradient_descent(root, w, ops::constant(root, 0.1f), grad_w);
//
// Hyperparameters (learning rate, decay rates, epsilon, ...) are scalars of the variable's
// dtype; gradients and slots have the variable's shape. Kernels exist for float32 and float64.
// `use_locking` is accepted for compatibility; caflow updates always hold the variables' locks.
#include "graph/client/scope.hpp"

namespace caflow::ops {

struct apply_gradient_descent_attrs {
  bool use_locking = false;
};
// var -= alpha * delta
output apply_gradient_descent(const scope& s, const output& var, const output& alpha,
                              const output& delta, const apply_gradient_descent_attrs& attrs = {});

struct apply_momentum_attrs {
  bool use_locking = false;
  bool use_nesterov = false;
};
// accum = accum * momentum + grad; var -= lr * accum
// (Nesterov: var -= lr * grad + lr * momentum * accum)
output apply_momentum(const scope& s, const output& var, const output& accum, const output& lr,
                      const output& grad, const output& momentum,
                      const apply_momentum_attrs& attrs = {});

struct apply_adam_attrs {
  bool use_locking = false;
  bool use_nesterov = false;
};
// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
// m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2)
// var -= lr_t * m / (sqrt(v) + epsilon)
// (Nesterov: m replaced by beta1 * m + (1 - beta1) * grad in the last line)
output apply_adam(const scope& s, const output& var, const output& m, const output& v,
                  const output& beta1_power, const output& beta2_power, const output& lr,
                  const output& beta1, const output& beta2, const output& epsilon,
                  const output& grad, const apply_adam_attrs& attrs = {});

struct apply_adagrad_attrs {
  bool use_locking = false;
  bool update_slots = true;
};
// accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum)
output apply_adagrad(const scope& s, const output& var, const output& accum, const output& lr,
                     const output& grad, const apply_adagrad_attrs& attrs = {});

struct apply_rms_prop_attrs {
  bool use_locking = false;
};
// ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / sqrt(ms + epsilon);
// var -= mom
output apply_rms_prop(const scope& s, const output& var, const output& ms, const output& mom,
                      const output& lr, const output& rho, const output& momentum,
                      const output& epsilon, const output& grad,
                      const apply_rms_prop_attrs& attrs = {});

// Sparse updates (SparseApply*): the dense formulas above, applied only to the rows of var
// (and its slots) that `indices` (an int32 or int64 vector) names, grad holding one row per
// index: grad.shape = [len(indices)] + var.shape[1:]. Rows are updated in index order, so a
// repeated index applies its gradients one after the other. An index outside
// [0, var.shape[0]) fails the step before anything is written.
output sparse_apply_gradient_descent(const scope& s, const output& var, const output& alpha,
                                     const output& grad, const output& indices,
                                     const apply_gradient_descent_attrs& attrs = {});
output sparse_apply_momentum(const scope& s, const output& var, const output& accum,
                             const output& lr, const output& grad, const output& indices,
                             const output& momentum, const apply_momentum_attrs& attrs = {});
output sparse_apply_rms_prop(const scope& s, const output& var, const output& ms,
                             const output& mom, const output& lr, const output& rho,
                             const output& momentum, const output& epsilon, const output& grad,
                             const output& indices, const apply_rms_prop_attrs& attrs = {});
output sparse_apply_adagrad(const scope& s, const output& var, const output& accum,
                            const output& lr, const output& grad, const output& indices,
                            const apply_adagrad_attrs& attrs = {});

struct sparse_apply_ftrl_attrs {
  bool use_locking = false;
};
// FTRL-Proximal (McMahan et al.), per element of the rows named:
//   accum_new = accum + grad^2
//   linear += grad - (accum_new^-lr_power - accum^-lr_power) / lr * var
//   quadratic = accum_new^-lr_power / lr + 2 * l2
//   var = |linear| > l1 ? (sign(linear) * l1 - linear) / quadratic : 0;  accum = accum_new
// lr > 0, l1 >= 0, l2 >= 0 and lr_power <= 0 are required.
output sparse_apply_ftrl(const scope& s, const output& var, const output& accum,
                         const output& linear, const output& grad, const output& indices,
                         const output& lr, const output& l1, const output& l2,
                         const output& lr_power, const sparse_apply_ftrl_attrs& attrs = {});

}  // namespace caflow::ops
