#include "graph/client/train/optimizer.hpp"

#include <set>

#include "graph/client/gradients/gradients.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/client/train/initializers.hpp"

namespace caflow::train {
namespace {

bool is_float(dtype t) { return t == dtype::float32 || t == dtype::float64; }

operation op_of(const output& o) { return operation{o.node, {o.type}}; }

status check_trainable(const std::string& where, const variable& v, size_t i) {
  if (!v.valid())
    return errors::invalid_argument(where, ": variable ", i,
                                    " is invalid (from a failed create_variable?)");
  if (!is_float(v.type()))
    return errors::invalid_argument(where, ": variable '", v.name(), "' is ",
                                    dtype_name(v.type()),
                                    "; only float32 and float64 variables can be trained");
  return {};
}

}  // namespace

output hyperparameter::as(const scope& s, dtype type) const {
  if (!is_tensor()) return scalar_constant(s, value_, type);
  return tensor_.type == type ? tensor_ : ops::cast(s, tensor_, type);
}

output optimizer::apply_context::param(const hyperparameter& h, std::string_view name,
                                       dtype type) {
  auto [it, fresh] = params_.try_emplace({&h, type});
  if (fresh) it->second = h.as(shared_.with_op_name(name), type);
  return it->second;
}

status_or<std::vector<gradient_and_variable>> optimizer::compute_gradients(
    const scope& s, const output& loss, const std::vector<variable>& var_list,
    const gradient_options& options) const {
  CAFLOW_RETURN_IF_ERROR(s.get_status());
  const std::string where = name_ + ".compute_gradients";
  if (!loss.valid())
    return errors::invalid_argument(where, ": the loss is an invalid output (from a failed op?)");
  if (var_list.empty())
    return errors::invalid_argument(where, ": var_list is empty; pass the variables to train, ",
                                    "e.g. a variable_set's trainable()");
  std::vector<output> refs;
  for (size_t i = 0; i < var_list.size(); ++i) {
    CAFLOW_RETURN_IF_ERROR(check_trainable(where, var_list[i], i));
    refs.push_back(var_list[i].ref);
  }
  std::vector<gradient_value> grads;
  CAFLOW_RETURN_IF_ERROR(add_symbolic_gradients(s, {loss}, refs, {}, options, &grads));
  std::vector<gradient_and_variable> out;
  for (size_t i = 0; i < var_list.size(); ++i) out.push_back({grads[i], var_list[i]});
  return out;
}

status_or<operation> optimizer::apply_gradients(
    const scope& s, const std::vector<gradient_and_variable>& grads_and_vars,
    const variable& global_step) {
  CAFLOW_RETURN_IF_ERROR(s.get_status());
  const std::string where = name_ + ".apply_gradients";
  if (grads_and_vars.empty())
    return errors::invalid_argument(where, ": grads_and_vars is empty");
  std::vector<gradient_and_variable> todo;
  std::set<std::string> seen;
  std::string names;
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const auto& [grad, var] = grads_and_vars[i];
    CAFLOW_RETURN_IF_ERROR(check_trainable(where, var, i));
    if (!seen.insert(var.name()).second)
      return errors::invalid_argument(where, ": variable '", var.name(),
                                      "' appears more than once");
    names += (names.empty() ? "'" : ", '") + var.name() + "'";
    if (!grad.valid()) continue;
    if (grad.type() != var.type())
      return errors::invalid_argument(where, ": the gradient '", grad.name(), "' of variable '",
                                      var.name(), "' is ", dtype_name(grad.type()), ", expected ",
                                      dtype_name(var.type()));
    todo.push_back(grads_and_vars[i]);
  }
  if (todo.empty())
    return errors::invalid_argument(where, ": no gradients provided for any variable: ", names);
  if (global_step.valid() && global_step.type() != dtype::int32 &&
      global_step.type() != dtype::int64)
    return errors::invalid_argument(where, ": global_step '", global_step.name(), "' is ",
                                    dtype_name(global_step.type()), "; it must be int32 or int64");

  std::vector<variable> vars;
  for (const auto& gv : todo) vars.push_back(gv.var);
  create_slots(s, vars);
  CAFLOW_RETURN_IF_ERROR(s.get_status());

  const scope shared = s.new_sub_scope(name_);
  apply_context ctx(shared);
  std::vector<operation> updates;
  for (const auto& [grad, var] : todo) {
    const scope us = shared.new_sub_scope("update_" + var.name()).colocate_with(var.ref);
    const output update = apply_one(us, ctx, grad, var);
    CAFLOW_RETURN_IF_ERROR(s.get_status());
    updates.push_back(op_of(update));
  }
  std::vector<operation> all = updates;
  for (const operation& op : finish(shared.with_control_dependencies(updates), ctx))
    all.push_back(op);
  const operation done = ops::group(shared.with_op_name("update"), all);
  CAFLOW_RETURN_IF_ERROR(s.get_status());
  if (!global_step.valid()) return done;

  // The step counts finished updates: it moves only after all of them.
  const scope gs = shared.with_control_dependencies({done}).colocate_with(global_step.ref);
  const output inc = ops::assign_add(gs.with_op_name("increment_global_step"), global_step.ref,
                                     scalar_constant(gs.with_op_name("one"), 1, global_step.type()));
  CAFLOW_RETURN_IF_ERROR(s.get_status());
  return op_of(inc);
}

output optimizer::apply_one(const scope& s, apply_context& ctx, const gradient_value& grad,
                            const variable& var) {
  if (!grad.is_sparse()) return apply_dense(s, ctx, grad.dense(), var);
  if (sums_duplicate_indices()) return apply_sparse(s, ctx, grad.slices(), var);
  return apply_sparse(s, ctx, grad::deduplicate(s.new_sub_scope("unique_rows"), grad.slices()),
                      var);
}

status_or<operation> optimizer::minimize(const scope& s, const output& loss,
                                         const std::vector<variable>& var_list) {
  return minimize(s, loss, variable{}, var_list);
}

status_or<operation> optimizer::minimize(const scope& s, const output& loss,
                                         const variable& global_step,
                                         const std::vector<variable>& var_list) {
  CAFLOW_ASSIGN_OR_RETURN(auto grads_and_vars, compute_gradients(s, loss, var_list));
  return apply_gradients(s, grads_and_vars, global_step);
}

variable optimizer::get_slot(const variable& var, std::string_view slot_name) const {
  auto per_var = slots_.find(var.name());
  if (per_var == slots_.end()) return {};
  auto it = per_var->second.find(slot_name);
  return it == per_var->second.end() ? variable{} : it->second;
}

void optimizer::create_slots(const scope&, const std::vector<variable>&) {}

std::vector<operation> optimizer::finish(const scope&, apply_context&) { return {}; }

variable optimizer::create_slot(const scope& s, const variable& var, const std::string& slot_name,
                                double value) {
  if (variable existing = get_slot(var, slot_name); existing.valid()) return existing;
  const partial_shape shape = s.shape_of(var.ref);
  if (!shape.fully_defined()) {
    s.update_status(errors::invalid_argument(
        name_, ": cannot create the '", slot_name, "' slot of variable '", var.name(),
        "': its shape ", shape.to_string(), " is not fully known"));
    return {};
  }
  variable slot = create_variable(s.colocate_with(var.ref), var.name() + "/" + name_,
                                  shape.to_shape(), var.type(), constant_initializer(value),
                                  {.trainable = false});
  if (!slot.valid()) return {};
  slots_[var.name()].emplace(slot_name, slot);
  created_.push_back(slot);
  return slot;
}

variable optimizer::create_non_slot(const scope& s, const std::string& name,
                                    const output& initial_value, const variable& colocate_with) {
  if (auto it = non_slots_.find(name); it != non_slots_.end()) return it->second;
  variable v = create_variable(s.colocate_with(colocate_with.ref), name, initial_value,
                               {.trainable = false});
  if (!v.valid()) return {};
  non_slots_.emplace(name, v);
  created_.push_back(v);
  return v;
}

variable optimizer::get_non_slot(const std::string& name) const {
  auto it = non_slots_.find(name);
  return it == non_slots_.end() ? variable{} : it->second;
}

}  // namespace caflow::train
