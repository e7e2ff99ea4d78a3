#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "actors/executor/graph_optimizer.hpp"
#include "graph/core/log.hpp"
#include "actors/master/master_state.hpp"
#include "devices/device_factory.hpp"
#include "graph/ir/dump.hpp"
#include "graph/ir/memory_types.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/const_copies.hpp"
#include "graph/ir/control_bypass.hpp"
#include "graph/ir/control_coalesce.hpp"
#include "graph/ir/placer.hpp"
#include "graph/ir/prune.hpp"
#include "graph/ir/serialization.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "net/errors.hpp"

namespace caflow::master_internal {
namespace {

optimizer_options optimizer_options_of(const session_config& c) {
  return {.cse = c.cse,
          .constant_folding = c.constant_folding,
          .max_constant_bytes = c.max_constant_bytes,
          .disabled = {c.disabled_passes.begin(), c.disabled_passes.end()}};
}

// The table of where every node of `g` went, for sessions that log placement.
std::string placement_of(const graph& g, const std::vector<std::string>& placement) {
  graph_def placed = g.def();
  for (size_t i = 0; i < placed.nodes.size() && i < placement.size(); ++i)
    placed.nodes[i].device = placement[i];
  return placement_table(placed);
}

using cf_plan_atom = caf::atom_constant<caf::atom("cf_plan")>;

// Where the kernels of `device`'s type read and write each arg, from the kernel registry.
memory_type_query memory_types_on(const std::string& device) {
  auto spec = parse_device_spec(device);
  const std::string type = spec.ok() && spec->type ? *spec->type : std::string(device_cpu);
  memory_type_query q;
  q.host_device = device_registry::global().host_memory(type);
  q.types = [type](const node_def& n, std::vector<bool>& in, std::vector<bool>& out) {
    memory_types m = kernel_registry::global().memory_types_of(n, type);
    in = std::move(m.input_on_host);
    out = std::move(m.output_on_host);
  };
  return q;
}

// A node must run on the same device in every run signature: a variable placed on the GPU
// for its initializer (which the GPU can run) and on the CPU for its update (which it cannot)
// would be two variables. So the session's whole graph is placed, as TF places it, and every
// node of the pruned graph keeps that device; where the whole graph cannot be placed (a node
// this run does not need asks for a missing device), the pruned graph is placed on its own.
void pin_to_whole_graph_placement(const graph& whole, const std::vector<std::string>& devices,
                                  const placement_options& popts, const kernel_check& has_kernel,
                                  graph_def& pruned) {
  auto placed = place(whole, devices, popts, has_kernel);
  if (!placed.ok()) return;
  std::unordered_map<std::string_view, const std::string*> device_of;
  for (const graph_node& n : whole.nodes()) device_of.emplace(n.name(), &(*placed)[n.id]);
  for (node_def& n : pruned.nodes)
    if (auto it = device_of.find(n.name); it != device_of.end()) n.device = *it->second;
}

// A node that asks for a device the session's device filters leave out fails the run by name:
// placement would only say that no device matches. The master's own task is always usable.
status check_requested_devices(const graph_def& def, const device_filters& filters,
                               const std::string& own_task) {
  if (filters.empty()) return {};
  for (const node_def& n : def.nodes) {
    if (n.device.empty() || filters.admits_device(n.device)) continue;
    const std::string task = task_of_device(n.device);
    if (!task.empty() && task == own_task) continue;
    return errors::invalid_argument("node '", n.name, "' (", n.op, ") asks for device '", n.device,
                                    "', which the device filters (", filters.to_string(),
                                    ") leave out");
  }
  return {};
}

// One partition's share of planning: its graph passes, its memory types, its serialized graph.
struct finished_partition {
  status st;
  std::vector<pass_stats> passes;
  partition_ref ref;
};

finished_partition finish_partition(const std::string& device, graph_def& def,
                                    partition_optimizer& optimizer,
                                    const optimizer_options& passes,
                                    const std::vector<std::string>& targets) {
  finished_partition out;
  auto done = optimizer.run(def, passes, targets);
  if (!done.ok()) {
    out.st = done.get_status();
    return out;
  }
  out.passes = std::move(done).value();
  out.st = ensure_memory_types(def, memory_types_on(device));
  if (!out.st.ok()) return out;
  partition_ref& p = out.ref;
  p.device = device;
  p.task = task_of_device(device);
  for (const node_def& n : def.nodes) {
    if (n.op == "_Send") p.send_keys.push_back(rendezvous_key(n));
    if (n.op == "_Arg") p.arg_indices.push_back(n.attrs.at("index").get<int64_t>());
  }
  p.graph_bytes = serialize_graph(def);
  p.num_nodes = static_cast<int64_t>(def.nodes.size());
  return out;
}

// Below this many nodes in all partitions, a helper thread costs more than it saves.
constexpr size_t parallel_finish_nodes = 8192;

// Finishes every partition, on the planning thread and, for a large graph, on up to three
// helper threads made for the purpose (partitions are independent; each thread has its own
// optimizer and folding device). Results and the first error come in device order, whatever
// thread finished which partition.
status finish_partitions(partitioned& parts, const optimizer_options& passes,
                         const std::vector<std::string>& targets, prepared_run& run) {
  std::vector<std::pair<const std::string*, graph_def*>> work;
  size_t nodes = 0;
  for (auto& [device, def] : parts.partitions) {
    work.emplace_back(&device, &def);
    nodes += def.nodes.size();
  }
  std::vector<finished_partition> done(work.size());
  std::atomic<size_t> next{0};
  const auto drain = [&] {
    partition_optimizer optimizer;
    for (size_t i; (i = next.fetch_add(1)) < work.size();)
      done[i] = finish_partition(*work[i].first, *work[i].second, optimizer, passes, targets);
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t helpers = nodes < parallel_finish_nodes
                             ? 0
                             : std::min<size_t>({cores - 1, 3, work.size() - 1});
  std::vector<std::thread> threads;
  for (size_t h = 0; h < helpers; ++h) threads.emplace_back(drain);
  drain();
  for (std::thread& t : threads) t.join();
  optimization_report optimized;
  for (finished_partition& f : done) {
    CAFLOW_RETURN_IF_ERROR(f.st);
    optimized.add(f.passes);
    run.parts.push_back(std::move(f.ref));
  }
  run.report.nodes_removed = optimized.nodes_removed;
  run.report.nodes_folded = optimized.nodes_folded;
  run.report.optimization = std::move(optimized.summary);
  return {};
}

// Prunes, places and partitions the job's graph and runs the graph passes on every partition.
// Runs on the planning thread: it reads only the job.
status plan_partitions(plan_job& job) {
  run_signature sig{job.feed_names, job.fetches, job.targets};
  CAFLOW_ASSIGN_OR_RETURN(pruned_graph pruned, prune_for_run(*job.full, sig));
  auto run = std::make_shared<prepared_run>();
  run->contract = {pruned.feed_types, pruned.feed_shapes, job.fetches.size()};
  placement_options popts;
  popts.default_device = job.default_device;
  popts.allow_soft_placement = job.config.allow_soft_placement;
  popts.type_priority = [](std::string_view type) {
    return device_registry::global().priority(type);
  };
  const kernel_check has_kernel = [](const node_def& n, std::string_view type) {
    return kernel_registry::global().has_kernel(n, type);
  };
  CAFLOW_RETURN_IF_ERROR(check_requested_devices(pruned.def, job.filters, job.default_device));
  pin_to_whole_graph_placement(*job.full, job.devices, popts, has_kernel, pruned.def);
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(pruned.def), {.infer_shapes = false}));
  CAFLOW_ASSIGN_OR_RETURN(std::vector<std::string> placement,
                          place(g, job.devices, popts, has_kernel));
  const optimizer_options passes = optimizer_options_of(job.config);
  if (!passes.disabled.count(control_bypass_pass)) {
    // Node ids stay as they were: the placement still fits the rebuilt graph.
    if (bypassed_graph bypassed = bypass_remote_noops(g, placement); bypassed.rewired > 0) {
      CAFLOW_ASSIGN_OR_RETURN(g, graph::build(std::move(bypassed.def), {.infer_shapes = false}));
    }
  }
  if (!passes.disabled.count(const_copies_pass)) {
    if (const_copied_graph copied = copy_constants_to_readers(std::move(g), placement);
        copied.copies > 0) {
      CAFLOW_ASSIGN_OR_RETURN(g, graph::build(std::move(copied.def), {.infer_shapes = false}));
      placement = std::move(copied.placement);
    }
  }
  if (!passes.disabled.count(control_coalesce_pass)) {
    // After the bypass, which may leave a consumer waiting on several nodes of one device.
    if (coalesced_graph grouped = coalesce_remote_control(g, placement); grouped.edges_removed > 0) {
      CAFLOW_ASSIGN_OR_RETURN(g, graph::build(std::move(grouped.def), {.infer_shapes = false}));
      placement = std::move(grouped.placement);
    }
  }
  partition_options part_opts;
  for (const auto& d : job.devices) part_opts.incarnations[d] = job.incarnations[task_of_device(d)];
  if (job.config.log_device_placement) run->report.placement = placement_of(g, placement);
  CAFLOW_ASSIGN_OR_RETURN(partitioned parts, partition(g, placement, part_opts));
  CAFLOW_RETURN_IF_ERROR(finish_partitions(parts, passes, job.targets, *run));
  job.run = std::move(run);
  return {};
}

// An actor for one job that hands it to the planning thread: planning a large graph takes a
// while, and the master's thread is also its task's network loop (net/loop/loop_scheduler.hpp),
// which must keep serving meanwhile. Not a detached actor (net/loop/blocking_worker.hpp says why).
// It is done once the job is handed over; the promise answers for it.
caf::behavior planner(caf::event_based_actor* self, std::shared_ptr<plan_job> job,
                      std::shared_ptr<blocking_worker> thread) {
  return {[=](cf_plan_atom) -> caf::result<bool> {
    auto planned = self->make_response_promise<bool>();
    thread->post([job, planned]() mutable {
      job->result = plan_partitions(*job);
      planned.deliver(true);
    });
    self->quit();
    return planned;
  }};
}

// Back on the master: which worker runs each partition; fails if one of them is lost.
status assign_workers(const master_state& st, prepared_run& run) {
  for (auto& p : run.parts) {
    if (auto gone = st.lost.find(p.task); gone != st.lost.end()) return gone->second;
    auto w = st.opts.workers.find(p.task);
    if (w == st.opts.workers.end())
      return errors::not_found("no worker for task ", p.task, " (device ", p.device, ")");
    p.worker = w->second;
    p.remote = caf::actor_cast<caf::strong_actor_ptr>(p.worker)->node() != st.node;
  }
  for (auto& p : run.parts)
    for (const auto& other : run.parts) p.runs_on_worker += other.worker == p.worker ? 1 : 0;
  remote_first(run.parts);
  return {};
}

void fail_run(const std::shared_ptr<prepared_run>& run, const status& why) {
  run->failed = why;
  auto waiting = std::move(run->waiting);
  for (auto& w : waiting) w();
}

void mark_ready(const std::shared_ptr<prepared_run>& run) {
  run->ready = true;
  auto waiting = std::move(run->waiting);
  for (auto& w : waiting) w();
}

// Where a _Recv's values go: its rendezvous actor, and its task's bulk channel.
struct recv_endpoint {
  rendezvous_actor actor;
  bulk_endpoint bulk;
  std::string task;
};
using recv_endpoints = std::map<std::string, recv_endpoint>;  // by rendezvous key

// Phase 2: tell every partition where its _Sends go.
void bind_partitions(master_pointer self, std::shared_ptr<prepared_run> run,
                     std::shared_ptr<recv_endpoints> endpoints) {
  run->pending = run->parts.size();
  for (auto& p : run->parts) {
    bind_request req{p.handle, p.send_keys, {}, {}};
    for (const auto& key : p.send_keys) {
      auto e = endpoints->find(key);
      if (e == endpoints->end())
        return fail_run(run, errors::internal("no _Recv registered for edge key '", key, "'"));
      req.send_endpoints.push_back(e->second.actor);
      req.send_bulk.push_back(e->second.bulk);
    }
    self->request(p.worker, self->state.opts.rpc_timeout, cf_bind_atom::value, std::move(req))
        .then(
            [=](bool) {
              if (run->failed.ok() && --run->pending == 0) mark_ready(run);
            },
            [=, task = p.task](caf::error& e) {
              if (run->failed.ok())
                fail_run(run, to_status(e).with_context("binding partitions on " + task));
            });
  }
}

// Between phases: the tasks that will send values to each other connect first, so the
// rendezvous actors bound next have a direct route.
void meet_then_bind(master_pointer self, std::shared_ptr<prepared_run> run,
                    std::shared_ptr<recv_endpoints> endpoints) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& p : run->parts)
    for (const auto& key : p.send_keys)
      if (auto e = endpoints->find(key); e != endpoints->end() && e->second.task != p.task)
        pairs.emplace(p.task, e->second.task);
  meet_pairs(self, std::move(pairs), [=](status met) {
    if (!run->failed.ok()) return;
    if (!met.ok()) return fail_run(run, met);
    bind_partitions(self, run, endpoints);
  });
}

}  // namespace

// Phase 1: register every partition; the replies name each _Recv's rendezvous actor.
void register_partitions(master_pointer self, std::shared_ptr<prepared_run> run,
                         const std::string& session) {
  auto endpoints = std::make_shared<recv_endpoints>();
  run->pending = run->parts.size();
  for (size_t i = 0; i < run->parts.size(); ++i) {
    auto& p = run->parts[i];
    register_graph_request req{session, p.device, p.graph_bytes};
    self->request(p.worker, self->state.opts.rpc_timeout, cf_reg_graph_atom::value, std::move(req))
        .then(
            [=](register_graph_reply& reply) {
              if (!run->failed.ok()) return;
              auto& part = run->parts[i];
              part.handle = reply.graph_handle;
              auto& known = self->state.incarnations[part.task];
              if (known != 0 && known != reply.incarnation) {
                // The task restarted since this signature was partitioned: its keys are stale.
                known = reply.incarnation;
                return fail_run(run, errors::aborted("task ", part.task,
                                                     " restarted (new incarnation); run again"));
              }
              known = reply.incarnation;
              for (size_t k = 0; k < reply.recv_keys.size(); ++k)
                (*endpoints)[reply.recv_keys[k]] = {reply.recv_endpoints[k], reply.bulk, part.task};
              if (--run->pending == 0) meet_then_bind(self, run, endpoints);
            },
            [=, task = p.task](caf::error& e) {
              if (run->failed.ok())
                fail_run(run, to_status(e).with_context("registering a partition on " + task));
            });
  }
}

void plan_then_register(master_pointer self, std::shared_ptr<prepared_run> run,
                        const std::string& session, const run_step_request& req) {
  auto& st = self->state;
  const master_session& s = st.sessions.at(session);
  auto job = std::make_shared<plan_job>();
  job->full = s.full;
  job->config = s.config;
  job->feed_names = req.feed_names;
  job->fetches = req.fetches;
  job->targets = req.targets;
  job->default_device = own_task(st);
  job->devices = devices_in_scope(st, s.filters);
  job->filters = s.filters;
  job->incarnations = st.incarnations;
  if (!st.opts.planning) st.opts.planning = std::make_shared<blocking_worker>("cf.planning");
  auto planning = self->spawn(planner, job, st.opts.planning);
  self->request(planning, caf::infinite, cf_plan_atom::value)
      .then(
          [=](bool) {
            if (!job->result.ok()) return fail_run(run, job->result);
            if (!self->state.sessions.count(session))
              return fail_run(run, errors::cancelled("session '", session,
                                                     "' was closed while its step was planned"));
            prepared_run& planned = *job->run;
            run->parts = std::move(planned.parts);
            run->contract = std::move(planned.contract);
            run->report = std::move(planned.report);
            if (status st = assign_workers(self->state, *run); !st.ok()) return fail_run(run, st);
            register_partitions(self, run, session);
          },
          [=](caf::error& e) {
            fail_run(run, to_status(e).with_context("planning the step"));
          });
}

void remote_first(std::vector<partition_ref>& parts) {
  std::stable_partition(parts.begin(), parts.end(),
                        [](const partition_ref& p) { return p.remote; });
}

}  // namespace caflow::master_internal
