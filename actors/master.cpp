#include "actors/master.hpp"

#include <algorithm>
#include <random>

#include <caf/all.hpp>

#include "actors/chunked_values.hpp"
#include "actors/graph_optimizer.hpp"
#include "actors/log.hpp"
#include "actors/step_stats.hpp"
#include "graph/device_name.hpp"
#include "graph/dump.hpp"
#include "graph/partition.hpp"
#include "graph/placer.hpp"
#include "graph/prune.hpp"
#include "graph/serialization.hpp"
#include "kernels/kernel_registry.hpp"
#include "net/errors.hpp"

namespace caflow {
namespace {

using namespace std::chrono_literals;

// One registered partition of a prepared run.
struct partition_ref {
  std::string task;
  std::string device;
  worker_actor worker;
  std::string graph_bytes;
  std::vector<std::string> send_keys;
  std::vector<int64_t> arg_indices;  // feeds this partition's _Arg nodes read
  std::string handle;                // from the worker, once registered
  int64_t num_nodes = 0;             // for the console's `graphs`
  bool remote = false;               // in another process: big feeds go to it in chunks
};

// A run signature turned into registered partitions.
struct prepared_run {
  std::vector<partition_ref> parts;
  std::vector<dtype> feed_types;
  std::vector<partial_shape> feed_shapes;
  size_t num_fetches = 0;
  bool ready = false;
  status failed;
  std::vector<std::function<void()>> waiting;  // steps that arrived during registration
  size_t pending = 0;
  run_step_reply report;  // optimization and placement, sent with the first step's fetches
  bool reported = false;
};

struct master_session {
  session_config config;
  std::shared_ptr<const graph> full;
  std::map<std::string, std::shared_ptr<prepared_run>> cache;
  step_stats latency;  // recent steps, for the console's `steps`
};

// Who asked for a step: the promise to answer, and, for a client in another process, where its
// big fetches go ahead of the answer in chunks.
struct step_client {
  caf::typed_response_promise<run_step_reply> promise;
  caf::strong_actor_ptr remote;  // null when the client shares this process
};

struct in_flight_step {
  std::shared_ptr<prepared_run> run;
  step_client client;
  std::vector<bool> replied;  // per partition
  size_t pending = 0;
  std::vector<wire_tensor> fetches;
  status root_cause;
  bool aborted = false;
  std::string session;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

struct master_state {
  master_options opts;
  caf::node_id node;  // this master's process, to tell local workers from remote ones
  std::vector<std::string> devices;
  std::map<std::string, master_session> sessions;
  std::map<std::string, uint64_t> incarnations;  // by task, learned from registrations
  std::map<caf::actor_addr, std::string> task_of;
  // Tasks whose worker is gone, with why: a request to a dead remote actor would only fail at
  // its timeout, so plans that need one fail at once instead.
  std::map<std::string, status> lost;
  std::map<int64_t, in_flight_step> steps;
  // Big feeds from clients (by their transfer id) and fetches from workers (by step id) that
  // came in chunks ahead of their message.
  chunked_arrivals arrivals;
  partition_optimizer optimizer;
  int64_t next_session = 1;
  // Step ids are drawn at random: workers may serve several masters (between-graph replication)
  // and outlive a restarted master, and refuse ids they have seen.
  std::mt19937_64 step_ids{std::random_device{}()};
  static inline const char* name = "caflow.master";
};

using master_pointer = master_actor::stateful_pointer<master_state>;

std::string own_task(const master_state& st) {
  return "/job:" + st.opts.job + "/replica:0/task:" + std::to_string(st.opts.task);
}

std::string task_of_device(const std::string& device) {
  auto spec = parse_device_spec(device);
  if (!spec.ok() || !spec->job || !spec->task) return {};
  return "/job:" + *spec->job + "/replica:0/task:" + std::to_string(*spec->task);
}

// Spells every required task the way the master names tasks ("/job:J/replica:0/task:T"),
// refusing names that are not tasks of this cluster.
status canonical_tasks(const master_state& st, std::vector<std::string>& tasks) {
  for (std::string& name : tasks) {
    const std::string task = task_of_device(name);
    if (task.empty())
      return errors::invalid_argument("required task '", name,
                                      "' is not a task name like /job:worker/task:1");
    if (task != own_task(st) && !st.opts.workers.count(task) && !st.opts.addresses.count(task))
      return errors::invalid_argument("required task '", name, "' is not a task of this cluster");
    name = task;
  }
  return {};
}

// Why a session cannot run now: one of its required tasks is lost.
status required_task_lost(const master_state& st, const master_session& s) {
  for (const auto& task : s.config.required_tasks)
    if (auto gone = st.lost.find(task); gone != st.lost.end())
      return gone->second.with_context("a task this session requires");
  return {};
}

std::string signature_key(const run_step_request& r) {
  std::string key;
  for (const auto& f : r.feed_names) (key += f) += ',';
  key += '|';
  for (const auto& f : r.fetches) (key += f) += ',';
  key += '|';
  for (const auto& t : r.targets) (key += t) += ',';
  return key;
}

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

status_or<std::shared_ptr<prepared_run>> plan(master_state& st, const master_session& s,
                                              const run_step_request& req) {
  run_signature sig{req.feed_names, req.fetches, req.targets};
  CAFLOW_ASSIGN_OR_RETURN(pruned_graph pruned, prune_for_run(*s.full, sig));
  auto run = std::make_shared<prepared_run>();
  run->feed_types = pruned.feed_types;
  run->feed_shapes = pruned.feed_shapes;
  run->num_fetches = req.fetches.size();
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(pruned.def), {.infer_shapes = false}));
  placement_options popts;
  popts.default_device = "/job:" + st.opts.job + "/replica:0/task:" + std::to_string(st.opts.task);
  popts.allow_soft_placement = s.config.allow_soft_placement;
  CAFLOW_ASSIGN_OR_RETURN(
      std::vector<std::string> placement,
      place(g, st.devices, popts, [](const node_def& n, std::string_view type) {
        return kernel_registry::global().has_kernel(n, type);
      }));
  partition_options part_opts;
  for (const auto& d : st.devices) part_opts.incarnations[d] = st.incarnations[task_of_device(d)];
  if (s.config.log_device_placement) run->report.placement = placement_of(g, placement);
  CAFLOW_ASSIGN_OR_RETURN(partitioned parts, partition(g, placement, part_opts));
  const optimizer_options passes = optimizer_options_of(s.config);
  optimization_report optimized;
  for (auto& [device, def] : parts.partitions) {
    CAFLOW_ASSIGN_OR_RETURN(std::vector<pass_stats> done, st.optimizer.run(def, passes, req.targets));
    optimized.add(done);
    partition_ref p;
    p.device = device;
    p.task = task_of_device(device);
    auto w = st.opts.workers.find(p.task);
    if (w == st.opts.workers.end())
      return errors::not_found("no worker for task ", p.task, " (device ", device, ")");
    p.worker = w->second;
    p.remote = caf::actor_cast<caf::strong_actor_ptr>(p.worker)->node() != st.node;
    if (auto gone = st.lost.find(p.task); gone != st.lost.end()) return gone->second;
    for (const node_def& n : def.nodes) {
      if (n.op == "_Send") p.send_keys.push_back(rendezvous_key(n));
      if (n.op == "_Arg") p.arg_indices.push_back(n.attrs.at("index").get<int64_t>());
    }
    p.graph_bytes = serialize_graph(def);
    p.num_nodes = static_cast<int64_t>(def.nodes.size());
    run->parts.push_back(std::move(p));
  }
  run->report.nodes_removed = optimized.nodes_removed;
  run->report.nodes_folded = optimized.nodes_folded;
  run->report.optimization = std::move(optimized.summary);
  return run;
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

// Phase 2: tell every partition where its _Sends go.
void bind_partitions(master_pointer self, std::shared_ptr<prepared_run> run,
                     std::shared_ptr<std::map<std::string, caf::actor>> endpoints) {
  run->pending = run->parts.size();
  for (auto& p : run->parts) {
    bind_request req{p.handle, p.send_keys, {}};
    for (const auto& key : p.send_keys) {
      auto e = endpoints->find(key);
      if (e == endpoints->end())
        return fail_run(run, errors::internal("no _Recv registered for edge key '", key, "'"));
      req.send_endpoints.push_back(e->second);
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

// Phase 1: register every partition; the replies name each _Recv's rendezvous actor.
void register_partitions(master_pointer self, std::shared_ptr<prepared_run> run,
                         const std::string& session) {
  auto endpoints = std::make_shared<std::map<std::string, caf::actor>>();
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
                (*endpoints)[reply.recv_keys[k]] = reply.recv_endpoints[k];
              if (--run->pending == 0) bind_partitions(self, run, endpoints);
            },
            [=, task = p.task](caf::error& e) {
              if (run->failed.ok())
                fail_run(run, to_status(e).with_context("registering a partition on " + task));
            });
  }
}

void finish_step(master_pointer self, int64_t step_id) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end()) return;
  in_flight_step& s = it->second;
  if (s.root_cause.ok()) {
    run_step_reply reply;
    if (!s.run->reported) {
      reply = s.run->report;
      s.run->reported = true;
    }
    reply.fetches = std::move(s.fetches);
    if (s.client.remote) {
      reply.transfer = step_id;
      for (size_t i = 0; i < reply.fetches.size(); ++i) {
        if (!travels_in_chunks(reply.fetches[i].value)) continue;
        send_chunks(self, caf::actor_cast<caf::actor>(s.client.remote), step_id,
                    chunk_key("fetch", i), reply.fetches[i].value);
        reply.fetches[i] = wire_tensor{};
        reply.chunked_fetches.push_back(static_cast<int32_t>(i));
      }
    }
    s.client.promise.deliver(std::move(reply));
  } else {
    s.client.promise.deliver(to_caf_error(s.root_cause));
  }
  self->state.arrivals.forget(step_id);
  for (const auto& p : s.run->parts) self->send(p.worker, cf_cleanup_atom::value, step_id);
  if (auto ss = self->state.sessions.find(s.session); ss != self->state.sessions.end())
    ss->second.latency.record(s.started, s.root_cause.ok());
  if (!s.root_cause.ok())
    write_log(log_level::info, own_task(self->state), "step ", step_id, " of ", s.session,
              " failed: ", s.root_cause.to_string());
  self->state.steps.erase(it);
}

// Records a partition's failure; the first real (not cancelled) error is the root cause.
void step_failed(master_pointer self, int64_t step_id, const status& why) {
  auto& s = self->state.steps.at(step_id);
  if (s.root_cause.ok() ||
      (s.root_cause.code() == error_code::cancelled && why.code() != error_code::cancelled))
    s.root_cause = why;
  if (!s.aborted) {
    s.aborted = true;
    for (const auto& p : s.run->parts)
      self->send(p.worker, cf_abort_atom::value, step_id, s.root_cause.to_string());
  }
}

void partition_done(master_pointer self, int64_t step_id, size_t part) {
  auto it = self->state.steps.find(step_id);
  if (it == self->state.steps.end() || it->second.replied[part]) return;
  it->second.replied[part] = true;
  if (--it->second.pending == 0) finish_step(self, step_id);
}

void start_step(master_pointer self, std::shared_ptr<prepared_run> run, run_step_request req,
                step_client client) {
  if (!run->failed.ok()) {
    client.promise.deliver(to_caf_error(run->failed));
    return;
  }
  int64_t step_id = 0;
  do {
    step_id = static_cast<int64_t>(self->state.step_ids() >> 1);
  } while (step_id == 0 || self->state.steps.count(step_id));
  in_flight_step s{run, std::move(client), std::vector<bool>(run->parts.size()), run->parts.size(),
                   std::vector<wire_tensor>(run->num_fetches), status{}, false, req.session,
                   std::chrono::steady_clock::now()};
  self->state.steps.emplace(step_id, std::move(s));
  for (size_t i = 0; i < run->parts.size(); ++i) {
    const auto& p = run->parts[i];
    run_graph_request r{p.handle, step_id, std::vector<wire_tensor>(req.feeds.size()),
                        static_cast<int32_t>(run->num_fetches), {}};
    for (int64_t a : p.arg_indices) {
      if (p.remote && travels_in_chunks(req.feeds[a].value)) {
        // Ahead of the request, from this actor to the same worker: they arrive in order.
        send_chunks(self, p.worker, step_id,
                    chunk_key("arg", static_cast<size_t>(a)), req.feeds[a].value);
        r.chunked_args.push_back(static_cast<int32_t>(a));
      } else {
        r.args[a] = req.feeds[a];
      }
    }
    // No timeout on the request itself: CAF 0.17 keeps a request's timeout entry until it would
    // fire, even after the reply, so 3 requests per step under a 60 s timeout held memory for
    // every step of the last minute (bench soak). One periodic tick enforces step deadlines.
    self->request(p.worker, caf::infinite, cf_run_graph_atom::value, std::move(r))
        .then(
            [=, task = p.task](run_graph_reply& reply) {
              auto it = self->state.steps.find(step_id);
              if (it == self->state.steps.end()) return;
              for (size_t k = 0; k < reply.rets.size() && k < it->second.fetches.size(); ++k)
                if (reply.rets[k].value.initialized()) it->second.fetches[k] = reply.rets[k];
              for (int32_t k : reply.chunked_rets) {
                auto arrived = self->state.arrivals.claim(step_id, chunk_key("ret", k));
                if (!arrived.ok())
                  step_failed(self, step_id, arrived.get_status().with_context("task " + task));
                else if (static_cast<size_t>(k) < it->second.fetches.size())
                  it->second.fetches[k] = wire_tensor{std::move(arrived).value()};
              }
              partition_done(self, step_id, i);
            },
            [=, task = p.task](caf::error& e) {
              if (!self->state.steps.count(step_id)) return;
              status why = to_status(e);
              if (why.message().find(task) == std::string::npos)
                why = why.with_context("task " + task);
              step_failed(self, step_id, why);
              partition_done(self, step_id, i);
            });
  }
}

// Puts the feeds that came ahead in chunks into `req`.
status claim_chunked_feeds(chunked_arrivals& arrivals, run_step_request& req) {
  status result;
  for (int32_t i : req.chunked_feeds) {
    if (i < 0 || static_cast<size_t>(i) >= req.feeds.size()) {
      result = errors::invalid_argument("feed #", i, " came in chunks but the step has ",
                                        req.feeds.size(), " feeds");
      break;
    }
    auto arrived = arrivals.claim(req.transfer, chunk_key("feed", static_cast<size_t>(i)));
    if (!arrived.ok()) {
      result = arrived.get_status().with_context(
          "feed '" + (static_cast<size_t>(i) < req.feed_names.size() ? req.feed_names[i] : "?") +
          "'");
      break;
    }
    req.feeds[i] = wire_tensor{std::move(arrived).value()};
  }
  if (!req.chunked_feeds.empty()) arrivals.forget(req.transfer);
  req.chunked_feeds.clear();
  return result;
}

status check_feeds(const prepared_run& run, const run_step_request& req) {
  if (req.feeds.size() != req.feed_names.size())
    return errors::invalid_argument(req.feeds.size(), " feed values for ", req.feed_names.size(),
                                    " feed names");
  for (size_t i = 0; i < req.feeds.size(); ++i) {
    const tensor& t = req.feeds[i].value;
    if (!t.initialized() || t.type() != run.feed_types[i] ||
        !run.feed_shapes[i].compatible_with(t.shape()))
      return errors::invalid_argument("feed '", req.feed_names[i], "' expects ",
                                      dtype_name(run.feed_types[i]), run.feed_shapes[i].to_string(),
                                      " but got ", t.initialized() ? dtype_name(t.type()) : "nothing",
                                      t.initialized() ? t.shape().to_string() : "");
  }
  return {};
}

status extend_session(master_session& s, const std::string& bytes) {
  CAFLOW_ASSIGN_OR_RETURN(graph_def more, deserialize_graph(bytes));
  graph_def def = s.full ? s.full->def() : graph_def{};
  def.nodes.insert(def.nodes.end(), more.nodes.begin(), more.nodes.end());
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(def)));
  s.full = std::make_shared<const graph>(std::move(g));
  return {};
}

// Fails the steps that have run longer than the step timeout, naming every task they still
// wait on (the stuck one is among them; the others may only wait for it).
void check_deadlines(master_pointer self) {
  const auto now = std::chrono::steady_clock::now();
  const auto limit = self->state.opts.step_timeout;
  std::vector<int64_t> late;
  for (const auto& [id, s] : self->state.steps)
    if (now - s.started > limit) late.push_back(id);
  for (int64_t id : late) {
    auto it = self->state.steps.find(id);
    if (it == self->state.steps.end()) continue;
    std::vector<size_t> waiting;
    std::string tasks;
    for (size_t i = 0; i < it->second.run->parts.size(); ++i)
      if (!it->second.replied[i]) {
        waiting.push_back(i);
        tasks += (tasks.empty() ? "" : ", ") + it->second.run->parts[i].task;
      }
    step_failed(self, id, errors::deadline_exceeded("step ", id, " ran past the step timeout of ",
                                                    limit.count(), " ms waiting for ", tasks));
    for (size_t i : waiting) partition_done(self, id, i);
  }
}

// A lost worker fails, at once, every step still waiting on it.
void worker_lost(master_pointer self, const caf::down_msg& dm) {
  auto t = self->state.task_of.find(dm.source);
  if (t == self->state.task_of.end()) return;
  const std::string task = t->second;
  const status why = errors::unavailable("task ", task, " was lost (",
                                         self->home_system().render(dm.reason), ")");
  self->state.lost[task] = why;
  // A peer that shut down in order is news, not trouble.
  const bool orderly = dm.reason == caf::exit_reason::user_shutdown ||
                       dm.reason == caf::exit_reason::normal;
  write_log(orderly ? log_level::info : log_level::warn, own_task(self->state), why.message());
  std::vector<std::pair<int64_t, size_t>> lost;
  for (auto& [id, s] : self->state.steps)
    for (size_t i = 0; i < s.run->parts.size(); ++i)
      if (s.run->parts[i].task == task && !s.replied[i]) lost.emplace_back(id, i);
  for (auto [id, i] : lost) {
    if (!self->state.steps.count(id)) continue;
    step_failed(self, id, why);
    partition_done(self, id, i);
  }
  // Steps that wait on the task without running there (through a shared queue, say) are
  // cancelled everywhere; their partitions answer the abort.
  std::vector<int64_t> requiring;
  for (const auto& [id, s] : self->state.steps) {
    auto session = self->state.sessions.find(s.session);
    if (session == self->state.sessions.end()) continue;
    const auto& required = session->second.config.required_tasks;
    if (std::find(required.begin(), required.end(), task) != required.end())
      requiring.push_back(id);
  }
  for (int64_t id : requiring)
    if (self->state.steps.count(id))
      step_failed(self, id, why.with_context("a task this session requires"));
  // Partitions registered with the lost task are gone: prepare again next time.
  for (auto& [name, s] : self->state.sessions)
    for (auto it = s.cache.begin(); it != s.cache.end();) {
      bool uses = false;
      for (const auto& p : it->second->parts) uses |= p.task == task;
      it = uses ? s.cache.erase(it) : std::next(it);
    }
}

void handle_step(master_pointer self, run_step_request req,
                 step_client client, bool may_resolve);

// Looks lost tasks up again (a restarted task listens on the same address), then retries the
// step once. A task found again has a new worker: monitored, and its old partitions forgotten.
void resolve_lost_then_retry(master_pointer self, run_step_request req,
                             step_client client,
                             status why) {
  auto& st = self->state;
  std::vector<std::string> tasks;
  for (const auto& [task, reason] : st.lost)
    if (st.opts.addresses.count(task)) tasks.push_back(task);
  if (tasks.empty() || !st.opts.resolver) {
    client.promise.deliver(to_caf_error(why));
    return;
  }
  auto pending = std::make_shared<size_t>(tasks.size());
  auto shared_req = std::make_shared<run_step_request>(std::move(req));
  for (const auto& task : tasks) {
    auto hp = split_host_port(st.opts.addresses.at(task));
    if (!hp.ok()) {
      client.promise.deliver(to_caf_error(hp.get_status()));
      return;
    }
    self->request(st.opts.resolver, st.opts.rpc_timeout, cf_resolve_atom::value, hp->host, hp->port,
                  worker_role)
        .then(
            [=](caf::strong_actor_ptr& found) {
              auto worker = caf::actor_cast<worker_actor>(found);
              if (worker) {
                self->state.opts.workers[task] = worker;
                self->state.task_of[worker.address()] = task;
                self->state.lost.erase(task);
                self->state.incarnations.erase(task);  // learned anew when registering
                self->monitor(worker);
              }
              if (--*pending == 0) handle_step(self, std::move(*shared_req), client, false);
            },
            [=](caf::error&) {
              if (--*pending == 0) handle_step(self, std::move(*shared_req), client, false);
            });
  }
}

void handle_step(master_pointer self, run_step_request req,
                 step_client client, bool may_resolve) {
  auto it = self->state.sessions.find(req.session);
  if (it == self->state.sessions.end()) {
    client.promise.deliver(to_caf_error(errors::not_found("no session '", req.session, "'")));
    return;
  }
  master_session& s = it->second;
  if (status gone = required_task_lost(self->state, s); !gone.ok()) {
    if (may_resolve)
      resolve_lost_then_retry(self, std::move(req), client, gone);
    else
      client.promise.deliver(to_caf_error(gone));
    return;
  }
  const std::string key = signature_key(req);
  auto cached = s.cache.find(key);
  // A plan that failed to register (a task restarted, a worker refused) is planned again.
  if (cached != s.cache.end() && !cached->second->failed.ok()) {
    s.cache.erase(cached);
    cached = s.cache.end();
  }
  if (cached == s.cache.end()) {
    auto run = plan(self->state, s, req);
    if (!run.ok()) {
      if (may_resolve && !self->state.lost.empty())
        resolve_lost_then_retry(self, std::move(req), client, run.get_status());
      else
        client.promise.deliver(to_caf_error(run.get_status()));
      return;
    }
    cached = s.cache.emplace(key, *run).first;
    register_partitions(self, *run, req.session);
  }
  auto run = cached->second;
  if (run->failed.ok())
    if (status st = check_feeds(*run, req); !st.ok()) {
      client.promise.deliver(to_caf_error(st));
      return;
    }
  if (run->ready || !run->failed.ok()) {
    start_step(self, run, std::move(req), client);
  } else {
    run->waiting.push_back([=, req = std::move(req)]() mutable {
      start_step(self, run, std::move(req), client);
    });
  }
}

// What the admin shows of this master: sessions, their cached partitions and step latency.
master_snapshot snapshot(const master_state& st) {
  master_snapshot m;
  for (const auto& [handle, s] : st.sessions) {
    session_summary sum{handle, s.full ? static_cast<int64_t>(s.full->num_nodes()) : 0,
                        static_cast<int64_t>(s.cache.size()), {}, s.latency.summary(), {}};
    int64_t signature = 0;
    for (const auto& [key, run] : s.cache) {
      for (const auto& p : run->parts)
        sum.partitions.push_back({signature, p.task, p.device, p.num_nodes});
      ++signature;
    }
    for (const auto& [id, step] : st.steps)
      if (step.session == handle) sum.running.push_back(id);
    m.sessions.push_back(std::move(sum));
  }
  return m;
}

master_actor::behavior_type master_behavior(master_pointer self, master_options opts) {
  self->state.opts = std::move(opts);
  self->state.node = self->node();
  for (const auto& [task, worker] : self->state.opts.workers) {
    self->state.devices.push_back(task + "/device:CPU:0");
    self->state.task_of[worker.address()] = task;
    self->monitor(worker);
  }
  self->set_down_handler([=](caf::down_msg& dm) { worker_lost(self, dm); });
  // Deadlines are checked a few times per timeout (at most once a second).
  const auto tick = std::min<std::chrono::milliseconds>(
      std::chrono::seconds(1), std::max<std::chrono::milliseconds>(
                                   std::chrono::milliseconds(10), self->state.opts.step_timeout / 4));
  self->delayed_send(self, tick, cf_tick_atom::value);
  return {
      [=](cf_tick_atom) {
        check_deadlines(self);
        self->delayed_send(self, tick, cf_tick_atom::value);
      },
      [=](cf_create_atom, const std::string& bytes,
          session_config& config) -> caf::result<std::string> {
        master_session s;
        if (status st = canonical_tasks(self->state, config.required_tasks); !st.ok())
          return to_caf_error(st);
        s.config = std::move(config);
        if (status st = extend_session(s, bytes); !st.ok()) return to_caf_error(st);
        std::string handle = "session_" + std::to_string(self->state.next_session++);
        self->state.sessions.emplace(handle, std::move(s));
        return handle;
      },
      [=](cf_extend_atom, const std::string& session, const std::string& bytes) -> caf::result<bool> {
        auto it = self->state.sessions.find(session);
        if (it == self->state.sessions.end())
          return to_caf_error(errors::not_found("no session '", session, "'"));
        if (status st = extend_session(it->second, bytes); !st.ok()) return to_caf_error(st);
        return true;
      },
      [=](cf_step_atom, run_step_request& req) -> caf::result<run_step_reply> {
        caf::strong_actor_ptr reply_to = reply_destination(self);
        auto promise = self->make_response_promise<run_step_reply>();
        step_client client{promise, in_other_process(reply_to, self) ? reply_to : nullptr};
        if (status st = claim_chunked_feeds(self->state.arrivals, req); !st.ok()) {
          promise.deliver(to_caf_error(st));
          return promise;
        }
        handle_step(self, std::move(req), std::move(client), true);
        return promise;
      },
      [=](cf_chunk_atom, const edge_chunk& c) {
        // A refused transfer is reported when its message claims the value.
        (void)self->state.arrivals.take(c);
      },
      [=](cf_close_atom, const std::string& session) -> caf::result<bool> {
        auto it = self->state.sessions.find(session);
        if (it == self->state.sessions.end())
          return to_caf_error(errors::not_found("no session '", session, "'"));
        for (const auto& [key, run] : it->second.cache)
          for (const auto& p : run->parts)
            if (!p.handle.empty()) caf::anon_send(p.worker, cf_dereg_atom::value, p.handle);
        self->state.sessions.erase(it);
        return true;
      },
      [=](cf_inspect_atom) -> master_snapshot { return snapshot(self->state); },
      [=](cf_kill_step_atom, int64_t step_id, const std::string& reason) -> bool {
        if (!self->state.steps.count(step_id)) return false;
        step_failed(self, step_id, errors::aborted("step ", step_id, " ", reason));
        return true;
      },
  };
}

}  // namespace

master_actor spawn_master(caf::actor_system& sys, master_options opts) {
  return sys.spawn(master_behavior, std::move(opts));
}

}  // namespace caflow
