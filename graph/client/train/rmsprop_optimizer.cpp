#include "graph/client/train/rmsprop_optimizer.hpp"

#include "graph/client/ops/training_ops.hpp"

namespace caflow::train {

rmsprop_optimizer::rmsprop_optimizer(hyperparameter learning_rate, const rmsprop_options& opts)
    : optimizer(opts.name, opts.use_locking),
      learning_rate_(std::move(learning_rate)),
      decay_(opts.decay),
      momentum_(opts.momentum),
      epsilon_(opts.epsilon) {}

void rmsprop_optimizer::create_slots(const scope& s, const std::vector<variable>& vars) {
  for (const variable& v : vars) {
    create_slot(s, v, "rms", 1.0);
    create_slot(s, v, "momentum", 0.0);
  }
}

output rmsprop_optimizer::apply_dense(const scope& s, apply_context& ctx, const output& grad,
                                      const variable& var) {
  const dtype t = var.type();
  return ops::apply_rms_prop(s, var.ref, get_slot(var, "rms").ref, get_slot(var, "momentum").ref,
                             ctx.param(learning_rate_, "learning_rate", t),
                             ctx.param(decay_, "decay", t), ctx.param(momentum_, "momentum", t),
                             ctx.param(epsilon_, "epsilon", t), grad,
                             {.use_locking = use_locking()});
}

output rmsprop_optimizer::apply_sparse(const scope& s, apply_context& ctx,
                                       const indexed_slices& grad, const variable& var) {
  const dtype t = var.type();
  return ops::sparse_apply_rms_prop(
      s, var.ref, get_slot(var, "rms").ref, get_slot(var, "momentum").ref,
      ctx.param(learning_rate_, "learning_rate", t), ctx.param(decay_, "decay", t),
      ctx.param(momentum_, "momentum", t), ctx.param(epsilon_, "epsilon", t), grad.values,
      grad.indices, {.use_locking = use_locking()});
}

}  // namespace caflow::train
