#include "graph/client/train/adagrad_optimizer.hpp"

#include "graph/client/ops/training_ops.hpp"

namespace caflow::train {

adagrad_optimizer::adagrad_optimizer(hyperparameter learning_rate, const adagrad_options& opts)
    : optimizer(opts.name, opts.use_locking),
      learning_rate_(std::move(learning_rate)),
      initial_accumulator_value_(opts.initial_accumulator_value) {}

void adagrad_optimizer::create_slots(const scope& s, const std::vector<variable>& vars) {
  // A zero accumulator would divide the first update by zero.
  if (!(initial_accumulator_value_ > 0)) {
    s.update_status(errors::invalid_argument(name(), ": initial_accumulator_value must be "
                                             "positive, got ", initial_accumulator_value_));
    return;
  }
  for (const variable& v : vars) create_slot(s, v, "accumulator", initial_accumulator_value_);
}

output adagrad_optimizer::apply_dense(const scope& s, apply_context& ctx, const output& grad,
                                      const variable& var) {
  return ops::apply_adagrad(s, var.ref, get_slot(var, "accumulator").ref,
                            ctx.param(learning_rate_, "learning_rate", var.type()), grad,
                            {.use_locking = use_locking()});
}

output adagrad_optimizer::apply_sparse(const scope& s, apply_context& ctx,
                                       const indexed_slices& grad, const variable& var) {
  return ops::sparse_apply_adagrad(s, var.ref, get_slot(var, "accumulator").ref,
                                   ctx.param(learning_rate_, "learning_rate", var.type()),
                                   grad.values, grad.indices, {.use_locking = use_locking()});
}

}  // namespace caflow::train
