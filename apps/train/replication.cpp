#include "apps/train/replication.hpp"

#include "apps/train/model_family.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/adagrad_optimizer.hpp"
#include "graph/client/train/adam_optimizer.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/momentum_optimizer.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "graph/client/train/rmsprop_optimizer.hpp"
#include "graph/client/train/sync_replicas_optimizer.hpp"
#include "graph/core/device_name.hpp"

namespace caflow::train_app {
namespace {

std::unique_ptr<train::optimizer> make_optimizer(const train_options& o) {
  const double lr = o.learning_rate;
  if (o.optimizer == "sgd") return std::make_unique<train::gradient_descent_optimizer>(lr);
  if (o.optimizer == "momentum") return std::make_unique<train::momentum_optimizer>(lr, 0.9);
  if (o.optimizer == "adagrad")
    return std::make_unique<train::adagrad_optimizer>(
        lr, train::adagrad_options{.initial_accumulator_value = o.adagrad_initial_accumulator});
  if (o.optimizer == "rmsprop") return std::make_unique<train::rmsprop_optimizer>(lr);
  return std::make_unique<train::adam_optimizer>(train::adam_options{.learning_rate = lr});
}

// Where worker `task`'s tower `index` runs: its GPU:<index> or its CPU:0 (tower_device_type).
// Nodes with no GPU kernel go to the task's CPU: the sessions allow soft placement.
std::string worker_device(const train_options& o, int task, int index = 0) {
  auto type = tower_device_type(o);
  return full_device_name("worker", task, type.ok() ? *type : std::string(device_cpu), index);
}

// One bool: all of `vars` are initialized.
output all_initialized(const scope& s, const train::variable_set& vars) {
  std::vector<output> flags;
  for (const auto& v : vars.global())
    flags.push_back(ops::cast(s, ops::is_variable_initialized(s, v.ref), dtype::int32));
  auto count = ops::sum(s, ops::pack(s, flags), {0});
  return ops::equal(s, count, ops::constant(s, static_cast<int32_t>(flags.size())));
}

// The average of each variable's tower gradients, computed on `device`, or on the variable's
// device when it is empty. A variable no tower's loss depends on (no gradient anywhere, TF's
// None) keeps no gradient, and apply_gradients leaves it alone.
std::vector<train::gradient_and_variable> average_towers(
    const scope& s, const std::vector<std::vector<train::gradient_and_variable>>& per_tower,
    const std::string& device = {}) {
  std::vector<train::gradient_and_variable> out;
  const float inv = 1.0f / static_cast<float>(per_tower.size());
  for (size_t v = 0; v < per_tower[0].size(); ++v) {
    const auto& var = per_tower[0][v].var;
    std::vector<gradient_value> grads;
    for (const auto& tower : per_tower)
      if (tower[v].gradient.valid()) grads.push_back(tower[v].gradient);
    if (grads.empty()) {
      out.push_back({gradient_value{}, var});
      continue;
    }
    const scope avg = device.empty() ? s.new_sub_scope("average").colocate_with(var.ref)
                                     : s.new_sub_scope("average").with_device(device);
    out.push_back({grad::scale(avg, grad::aggregate(avg, grads), ops::constant(avg, inv)), var});
  }
  return out;
}

// The loss's gradients. With --dense-gradients every sparse one (IndexedSlices of a table) is
// made dense here, on the worker, before it is applied: the comparison that shows what
// sparse updates buy (a whole table's gradient crossing to its ps and updating every row).
status_or<std::vector<train::gradient_and_variable>> loss_gradients(
    const train_options& o, const train::optimizer& opt, const scope& s, const output& loss,
    const std::vector<train::variable>& vars) {
  CAFLOW_ASSIGN_OR_RETURN(auto grads, opt.compute_gradients(s, loss, vars));
  if (!o.dense_gradients) return grads;
  const scope ds = s.new_sub_scope("dense_gradients");
  for (auto& gv : grads)
    if (gv.gradient.is_sparse()) gv.gradient = grad::to_dense(ds, gv.gradient);
  return grads;
}

// Worker `worker`'s towers (--gpus-per-worker, one per device) built under `s`, and their
// gradients: one tower's own, or with several, their average on the worker's first device, so
// that the worker sends one gradient per variable however many towers it has. A lone tower's
// gradients are named inside its scope when the graph holds other workers' towers too
// (`gradients_in_tower`), else at `s`'s level.
status_or<std::vector<train::gradient_and_variable>> worker_towers(
    const train_options& o, const model_family& family, const model_params& params,
    const train::optimizer& opt, const scope& s, const std::string& name, int worker,
    uint64_t seed, bool gradients_in_tower, std::vector<tower>* towers) {
  const std::vector<train::variable> trained = params.trainable();
  if (o.gpus_per_worker == 1) {
    const scope ts = s.new_sub_scope(name);
    towers->push_back(family.build_tower(ts, params, seed, {}));
    return loss_gradients(o, opt, gradients_in_tower ? ts : s, towers->back().loss, trained);
  }
  std::vector<std::vector<train::gradient_and_variable>> per_tower;
  for (int t = 0; t < o.gpus_per_worker; ++t) {
    const scope ts = s.new_sub_scope(name + "_gpu" + std::to_string(t))
                         .with_device(worker_device(o, worker, t));
    towers->push_back(family.build_tower(ts, params, seed + 1000 * t, {}));
    CAFLOW_ASSIGN_OR_RETURN(auto grads, loss_gradients(o, opt, ts, towers->back().loss, trained));
    per_tower.push_back(std::move(grads));
  }
  return average_towers(s.new_sub_scope(name + "_towers"), per_tower, worker_device(o, worker, 0));
}

}  // namespace

std::vector<std::string> required_tasks(const train_options& o, const client_plan& plan) {
  if (plan.mode != replication::sync) return {};
  const int aggregate = o.replicas_to_aggregate ? o.replicas_to_aggregate : plan.workers;
  const int total = o.total_replicas ? o.total_replicas : plan.workers;
  std::vector<std::string> tasks;
  // With backups the chief trains on without a lost worker: it needs only the others' tokens.
  if (!plan.is_chief())
    tasks.push_back("/job:worker/task:0");
  else if (total <= aggregate)
    for (int w = 1; w < plan.workers; ++w) tasks.push_back("/job:worker/task:" + std::to_string(w));
  return tasks;
}

std::vector<std::string> device_filters_for(const train_options& o, const client_plan& plan) {
  if (plan.mode != replication::sync && plan.mode != replication::async) return {};
  std::vector<std::string> filters{"/job:ps", "/job:worker/task:" + std::to_string(plan.worker_index)};
  for (const std::string& task : required_tasks(o, plan)) filters.push_back(task);
  return filters;
}

status_or<std::unique_ptr<client_graph>> build_client_graph(const train_options& o,
                                                            const client_plan& plan) {
  auto g = std::make_unique<client_graph>();
  g->optimizer = make_optimizer(o);
  const bool distributed = plan.mode != replication::local;
  const int my_worker = plan.mode == replication::in_graph ? 0 : plan.worker_index;
  scope model_scope = g->root;
  if (distributed)
    model_scope = g->root.with_device_function(train::replica_device_setter(
        {.ps_tasks = plan.ps_tasks, .worker_device = worker_device(o, my_worker)}));

  const model_family& family = model_family_for(o.model);
  g->global_step = train::create_global_step(model_scope);
  const model_params params = family.create_params(model_scope, o, plan.ps_tasks);
  const std::vector<train::variable> trained = params.trainable();
  g->shared_vars.add(g->global_step);
  g->shared_vars.add(trained);

  operation train_op;
  if (plan.mode == replication::in_graph) {
    // Each worker's gradients (its towers' average), then their average on each variable's
    // device: the towers of all workers weigh the same, since every tower takes one batch.
    std::vector<std::vector<train::gradient_and_variable>> per_tower;
    for (int w = 0; w < plan.workers; ++w) {
      const scope ws = g->root.with_device(worker_device(o, w));
      CAFLOW_ASSIGN_OR_RETURN(auto grads,
                              worker_towers(o, family, params, *g->optimizer, ws,
                                            "tower_" + std::to_string(w), w, o.seed + w,
                                            true, &g->towers));
      per_tower.push_back(std::move(grads));
    }
    CAFLOW_ASSIGN_OR_RETURN(train_op, g->optimizer->apply_gradients(
                                          g->root, average_towers(g->root, per_tower),
                                          g->global_step));
  } else if (plan.mode == replication::model_parallel) {
    // Layer i on worker i * workers / 4: with two workers, two layers each.
    std::vector<std::string> devices;
    for (int layer = 0; layer < 4; ++layer) devices.push_back(worker_device(o, layer * plan.workers / 4));
    g->towers.push_back(family.build_tower(g->root.new_sub_scope("tower"), params, o.seed, devices));
    CAFLOW_ASSIGN_OR_RETURN(
        auto grads, loss_gradients(o, *g->optimizer, g->root, g->towers.back().loss, trained));
    CAFLOW_ASSIGN_OR_RETURN(train_op,
                            g->optimizer->apply_gradients(g->root, grads, g->global_step));
  } else {
    CAFLOW_ASSIGN_OR_RETURN(auto grads,
                            worker_towers(o, family, params, *g->optimizer, model_scope, "tower",
                                          plan.worker_index, o.seed + plan.worker_index,
                                          false, &g->towers));
    if (plan.mode == replication::sync) {
      const int aggregate = o.replicas_to_aggregate ? o.replicas_to_aggregate : plan.workers;
      g->sync = std::make_unique<train::sync_replicas_optimizer>(
          *g->optimizer,
          train::sync_replicas_options{
              .replicas_to_aggregate = aggregate,
              .total_num_replicas = o.total_replicas ? o.total_replicas : plan.workers,
              .is_chief = plan.is_chief(),
              .local_device = worker_device(o, plan.worker_index)});
      CAFLOW_ASSIGN_OR_RETURN(train_op,
                              g->sync->apply_gradients(model_scope, grads, g->global_step));
      g->local_init.push_back(g->sync->local_initializer());
    } else {
      CAFLOW_ASSIGN_OR_RETURN(
          train_op, g->optimizer->apply_gradients(model_scope, grads, g->global_step));
    }
  }
  if (distributed && plan.ps_tasks > 0 &&
      (o.debug_stall_ps_at_step >= 0 || o.debug_stall_ps_on_signal)) {
    // A fault for tests: the training step also runs a kernel on the first ps task that, when
    // fed true, stalls past the step timeout without honouring cancellation.
    const scope ps = g->root.with_device("/job:ps/task:0");
    g->debug_stall_when = ops::placeholder_with_default(
        ps.with_op_name("debug_stall/when"), ops::constant(ps, false), partial_shape(tensor_shape{}));
    const output stall = ops::debug_stall(ps.with_op_name("debug_stall"), g->debug_stall_when,
                                          static_cast<float>(o.debug_stall_seconds));
    train_op = ops::group(g->root.with_op_name("train_with_debug_stall"),
                          {train_op, operation{stall.node, {}}});
  }
  g->train_op = train_op;
  g->shared_vars.add(g->optimizer->variables());
  g->shared_init = train::global_variables_initializer(g->root.with_op_name("init"), g->shared_vars);
  g->shared_ready = all_initialized(g->root.new_sub_scope("ready"), g->shared_vars);
  if (!g->root.ok()) return g->root.get_status();
  return g;
}

}  // namespace caflow::train_app
