#include "graph/client/train/adam_optimizer.hpp"

#include <algorithm>

#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/training_ops.hpp"

namespace caflow::train {
namespace {

// The power as the variable's dtype (the powers take the first variable's dtype).
output power_as(const scope& s, const variable& power, dtype type) {
  return power.type() == type ? power.ref : ops::cast(s, power.ref, type);
}

}  // namespace

adam_optimizer::adam_optimizer(const adam_options& opts)
    : optimizer(opts.name, opts.use_locking),
      learning_rate_(opts.learning_rate),
      beta1_(opts.beta1),
      beta2_(opts.beta2),
      epsilon_(opts.epsilon) {}

void adam_optimizer::create_slots(const scope& s, const std::vector<variable>& vars) {
  if (!beta1_power().valid()) {
    // Colocated with the first variable by name, as TensorFlow does, so the choice does not
    // depend on the order of var_list.
    const variable& first = *std::min_element(
        vars.begin(), vars.end(),
        [](const variable& a, const variable& b) { return a.name() < b.name(); });
    create_non_slot(s, "beta1_power",
                    beta1_.as(s.with_op_name("beta1_power/initial_value"), first.type()), first);
    create_non_slot(s, "beta2_power",
                    beta2_.as(s.with_op_name("beta2_power/initial_value"), first.type()), first);
  }
  for (const variable& v : vars) {
    create_slot(s, v, "m", 0.0);
    create_slot(s, v, "v", 0.0);
  }
}

output adam_optimizer::apply_dense(const scope& s, apply_context& ctx, const output& grad,
                                   const variable& var) {
  const dtype t = var.type();
  return ops::apply_adam(s, var.ref, get_slot(var, "m").ref, get_slot(var, "v").ref,
                         power_as(s, beta1_power(), t), power_as(s, beta2_power(), t),
                         ctx.param(learning_rate_, "learning_rate", t),
                         ctx.param(beta1_, "beta1", t), ctx.param(beta2_, "beta2", t),
                         ctx.param(epsilon_, "epsilon", t), grad,
                         {.use_locking = use_locking()});
}

std::vector<operation> adam_optimizer::finish(const scope& s, apply_context& ctx) {
  std::vector<operation> out;
  for (const auto& [power, beta, name] :
       {std::tuple{beta1_power(), &beta1_, "update_beta1_power"},
        std::tuple{beta2_power(), &beta2_, "update_beta2_power"}}) {
    const scope ps = s.colocate_with(power.ref);
    const output next = ops::mul(ps, power.ref, ctx.param(*beta, "beta", power.type()));
    const output assigned = ops::assign(ps.with_op_name(name), power.ref, next);
    out.push_back(operation{assigned.node, {assigned.type}});
  }
  return out;
}

}  // namespace caflow::train
