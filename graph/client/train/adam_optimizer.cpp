#include "graph/client/train/adam_optimizer.hpp"

#include <algorithm>

#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/ops/training_ops.hpp"
#include "graph/client/train/initializers.hpp"

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

// TF 1.x's AdamOptimizer._apply_sparse: both moments decay everywhere (dense, but on the
// variable's device: nothing crosses the network), the gradient's rows are added into them,
// and the whole variable moves by the corrected moments, as the dense update would.
output adam_optimizer::apply_sparse(const scope& s, apply_context& ctx, const indexed_slices& grad,
                                    const variable& var) {
  const dtype t = var.type();
  const output one = scalar_constant(s.with_op_name("one"), 1, t);
  const output beta1 = ctx.param(beta1_, "beta1", t), beta2 = ctx.param(beta2_, "beta2", t);
  const output b1p = power_as(s, beta1_power(), t), b2p = power_as(s, beta2_power(), t);
  const output lr = ops::real_div(
      s, ops::mul(s, ctx.param(learning_rate_, "learning_rate", t),
                  ops::sqrt(s, ops::sub(s, one, b2p))),
      ops::sub(s, one, b1p));
  const ops::assign_attrs locking{.use_locking = use_locking()};
  const ops::scatter_attrs scatter_locking{.use_locking = use_locking()};
  const variable m = get_slot(var, "m"), v = get_slot(var, "v");
  const output m_decayed = ops::assign(s, m.ref, ops::mul(s, m.ref, beta1), locking);
  const output m_t = ops::scatter_add(s.with_control_dependencies({operation{m_decayed.node, {m_decayed.type}}}),
                                      m.ref, grad.indices,
                                      ops::mul(s, grad.values, ops::sub(s, one, beta1)),
                                      scatter_locking);
  const output v_decayed = ops::assign(s, v.ref, ops::mul(s, v.ref, beta2), locking);
  const output v_t = ops::scatter_add(
      s.with_control_dependencies({operation{v_decayed.node, {v_decayed.type}}}), v.ref,
      grad.indices, ops::mul(s, ops::square(s, grad.values), ops::sub(s, one, beta2)),
      scatter_locking);
  const output step = ops::real_div(
      s, ops::mul(s, lr, m_t),
      ops::add(s, ops::sqrt(s, v_t), ctx.param(epsilon_, "epsilon", t)));
  return ops::assign_sub(s, var.ref, step);
}

}  // namespace caflow::train
