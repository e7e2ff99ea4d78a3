#include "graph/client/train/momentum_optimizer.hpp"

#include "graph/client/ops/training_ops.hpp"

namespace caflow::train {

momentum_optimizer::momentum_optimizer(hyperparameter learning_rate, hyperparameter momentum,
                                       const momentum_options& opts)
    : optimizer(opts.name, opts.use_locking),
      learning_rate_(std::move(learning_rate)),
      momentum_(std::move(momentum)),
      use_nesterov_(opts.use_nesterov) {}

void momentum_optimizer::create_slots(const scope& s, const std::vector<variable>& vars) {
  for (const variable& v : vars) create_slot(s, v, "momentum", 0.0);
}

output momentum_optimizer::apply_dense(const scope& s, apply_context& ctx, const output& grad,
                                       const variable& var) {
  const dtype t = var.type();
  return ops::apply_momentum(s, var.ref, get_slot(var, "momentum").ref,
                             ctx.param(learning_rate_, "learning_rate", t), grad,
                             ctx.param(momentum_, "momentum", t),
                             {.use_locking = use_locking(), .use_nesterov = use_nesterov_});
}

output momentum_optimizer::apply_sparse(const scope& s, apply_context& ctx,
                                        const indexed_slices& grad, const variable& var) {
  const dtype t = var.type();
  return ops::sparse_apply_momentum(s, var.ref, get_slot(var, "momentum").ref,
                                    ctx.param(learning_rate_, "learning_rate", t), grad.values,
                                    grad.indices, ctx.param(momentum_, "momentum", t),
                                    {.use_locking = use_locking(), .use_nesterov = use_nesterov_});
}

}  // namespace caflow::train
