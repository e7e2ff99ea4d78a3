#include "graph/client/train/gradient_descent_optimizer.hpp"

#include "graph/client/ops/training_ops.hpp"

namespace caflow::train {

gradient_descent_optimizer::gradient_descent_optimizer(hyperparameter learning_rate,
                                                       const gradient_descent_options& opts)
    : optimizer(opts.name, opts.use_locking), learning_rate_(std::move(learning_rate)) {}

output gradient_descent_optimizer::apply_dense(const scope& s, apply_context& ctx,
                                               const output& grad, const variable& var) {
  return ops::apply_gradient_descent(s, var.ref,
                                     ctx.param(learning_rate_, "learning_rate", var.type()), grad,
                                     {.use_locking = use_locking()});
}

// Repeated indices subtract each of their rows, which is the update of their sum.
output gradient_descent_optimizer::apply_sparse(const scope& s, apply_context& ctx,
                                                const indexed_slices& grad, const variable& var) {
  return ops::sparse_apply_gradient_descent(
      s, var.ref, ctx.param(learning_rate_, "learning_rate", var.type()), grad.values,
      grad.indices, {.use_locking = use_locking()});
}

}  // namespace caflow::train
