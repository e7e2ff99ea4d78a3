#include "graph/client/train/sync_replicas_optimizer.hpp"

#include "graph/client/ops/ops.hpp"

namespace caflow::train {

status_or<operation> sync_replicas_optimizer::apply_gradients(
    const scope& root, const std::vector<gradient_and_variable>& grads_and_vars,
    const variable& global_step) {
  const int total =
      opts_.total_num_replicas == 0 ? opts_.replicas_to_aggregate : opts_.total_num_replicas;
  if (opts_.replicas_to_aggregate < 1)
    return errors::invalid_argument("replicas_to_aggregate must be at least 1, got ",
                                    opts_.replicas_to_aggregate);
  if (total < opts_.replicas_to_aggregate)
    return errors::invalid_argument("total_num_replicas (", total,
                                    ") is below replicas_to_aggregate (",
                                    opts_.replicas_to_aggregate, ")");
  if (!global_step.valid() || global_step.type() != dtype::int64)
    return errors::invalid_argument("synchronous replicas need an int64 global step");
  const scope s = root.new_sub_scope("sync_replicas");
  const scope on_step = s.colocate_with(global_step.ref);
  auto token_queue = ops::fifo_queue(
      on_step.with_op_name("token_queue"), {dtype::int64},
      {.shapes = {partial_shape({})}, .container = {}, .shared_name = opts_.shared_prefix + "/token_queue"});

  // The chief starts from the global step it initialized or restored; every other worker from
  // a token the chief's initializer hands out after that, so none computes a first step on
  // values a restore is about to replace.
  const output first_step =
      opts_.is_chief
          ? ops::identity(s, global_step)
          : ops::ensure_shape(on_step, ops::queue_dequeue(on_step.with_op_name("first_token"),
                                                          token_queue, {dtype::int64}).at(0),
                              partial_shape({}));
  local_step_ = create_variable(s.with_device(opts_.local_device), "local_step", first_step,
                                {.trainable = false, .validate_shape = true});

  std::vector<operation> applied;
  std::vector<std::pair<output, gradient_and_variable>> accumulators;  // (handle, grad/var)
  for (const auto& gv : grads_and_vars) {
    if (!gv.gradient.valid()) continue;
    const scope on_var = s.colocate_with(gv.var.ref);
    const ops::conditional_accumulator_attrs attrs{
        .container = {}, .shared_name = opts_.shared_prefix + "/" + gv.var.name() + "/grad_accum"};
    const scope named = on_var.with_op_name(gv.var.name() + "/grad_accum");
    // Sparse gradients (embedding rows) are summed row by row: only the rows a worker read
    // cross the network, and only they are updated.
    if (gv.gradient.is_sparse()) {
      const indexed_slices& g = gv.gradient.slices();
      auto acc = ops::sparse_conditional_accumulator(named, gv.var.type(),
                                                     on_var.shape_of(gv.var.ref), attrs);
      applied.push_back(ops::sparse_accumulator_apply_gradient(on_var, acc, local_step_,
                                                               g.indices, g.values,
                                                               g.dense_shape));
      accumulators.push_back({acc, gv});
      continue;
    }
    auto acc = ops::conditional_accumulator(named, gv.var.type(), on_var.shape_of(gv.var.ref),
                                            attrs);
    applied.push_back(
        ops::accumulator_apply_gradient(on_var, acc, local_step_, gv.gradient.dense()));
    accumulators.push_back({acc, gv});
  }
  if (applied.empty())
    return errors::invalid_argument("no gradient for any variable of the synchronous update");

  close_tokens_ = ops::queue_close(on_step.with_op_name("close_token_queue"), token_queue);
  if (!opts_.is_chief) {
    // A worker's step ends with a token: the global step of the update that used its gradient.
    auto token = ops::queue_dequeue(s.with_control_dependencies(applied), token_queue,
                                    {dtype::int64});
    if (!s.ok()) return s.get_status();
    auto train_op = ops::assign(s.with_op_name("train_op"), local_step_, token.at(0));
    if (!s.ok()) return s.get_status();
    return operation{train_op.node, {train_op.type}};
  }
  // The chief's own gradients are in before it waits for the others'. It takes no token
  // itself: a fast worker may take two tokens of one update (its gradients count for the next
  // one all the same), and a chief waiting for a token that worker took could never run the
  // update the worker then waits for.
  const scope after_apply = s.with_control_dependencies(applied);
  auto num_required = ops::constant(s, static_cast<int32_t>(opts_.replicas_to_aggregate));
  std::vector<gradient_and_variable> averaged;
  for (const auto& [acc, gv] : accumulators) {
    const scope on_var = after_apply.colocate_with(gv.var.ref);
    if (gv.gradient.is_sparse()) {
      const std::vector<output> taken =
          ops::sparse_accumulator_take_gradient(on_var, acc, num_required, gv.var.type());
      averaged.push_back({indexed_slices{taken[1], taken[0], taken[2]}, gv.var});
      continue;
    }
    averaged.push_back(
        {ops::accumulator_take_gradient(on_var, acc, num_required, gv.var.type()), gv.var});
  }
  // Each other replica's first token, handed out only once every accumulator took the step:
  // a gradient for a step beyond an accumulator's would be dropped after a restore.
  auto hand_out = [&](const std::vector<operation>& after, const output& step) {
    const int others = total - 1;
    auto tokens = ops::fill(on_step.with_control_dependencies(after),
                            ops::constant(s, std::vector<int32_t>{others}, {1}), step);
    return ops::queue_enqueue_many(on_step, token_queue, {tokens});
  };
  std::vector<operation> resets;
  auto current = ops::identity(on_step, global_step);
  for (const auto& [acc, gv] : accumulators)
    resets.push_back(ops::accumulator_set_global_step(s.colocate_with(gv.var.ref), acc, current));
  if (total > 1) resets.push_back(hand_out(resets, current));
  chief_init_ = ops::group(s.with_op_name("sync_replicas/chief_init"), resets);
  CAFLOW_ASSIGN_OR_RETURN(operation update, opt_.apply_gradients(s, averaged, global_step));
  const scope after_update = s.with_control_dependencies({update});
  auto new_step = ops::identity(after_update.colocate_with(global_step.ref), global_step);
  std::vector<operation> handed_out;
  for (const auto& [acc, gv] : accumulators)
    handed_out.push_back(
        ops::accumulator_set_global_step(s.colocate_with(gv.var.ref), acc, new_step));
  if (total > 1) handed_out.push_back(hand_out(handed_out, new_step));
  if (!s.ok()) return s.get_status();
  auto train_op = ops::assign(s.with_op_name("train_op").with_control_dependencies(handed_out),
                              local_step_, new_step);
  if (!s.ok()) return s.get_status();
  return operation{train_op.node, {train_op.type}};
}

bool sync_replicas_optimizer::is_end_of_training(const status& st) const {
  return st.code() == error_code::out_of_range &&
         st.message().find("'" + opts_.shared_prefix + "/token_queue' is closed") !=
             std::string::npos;
}

status_or<operation> sync_replicas_optimizer::minimize(const scope& s, const output& loss,
                                                       const variable& global_step,
                                                       const std::vector<variable>& var_list) {
  CAFLOW_ASSIGN_OR_RETURN(auto grads, opt_.compute_gradients(s, loss, var_list));
  return apply_gradients(s, grads, global_step);
}

}  // namespace caflow::train
