#include "actors/master/master.hpp"

#include <algorithm>
#include <functional>

#include <caf/all.hpp>

#include "graph/core/log.hpp"
#include "actors/master/master_state.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/serialization.hpp"
#include "net/errors.hpp"

namespace caflow {
namespace {

using namespace master_internal;

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

status extend_session(master_session& s, const std::string& bytes) {
  CAFLOW_ASSIGN_OR_RETURN(graph_def more, deserialize_graph(bytes));
  graph_def def = s.full ? s.full->def() : graph_def{};
  def.nodes.insert(def.nodes.end(), more.nodes.begin(), more.nodes.end());
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(def)));
  s.full = std::make_shared<const graph>(std::move(g));
  return {};
}

// Releases a run's partitions on every task that holds one. A worker keeps a graph until its
// master deregisters it, so a run dropped from the cache (its session closed, a task it used
// lost, its registration failed) that skipped this left its partitions on the surviving tasks
// for good: a ps grew by megabytes with each worker its masters lost.
void release_run(const prepared_run& run) {
  for (const auto& p : run.parts)
    if (!p.handle.empty()) caf::anon_send(p.worker, cf_dereg_atom::value, p.handle);
}

// A lost worker fails, at once, every step still waiting on it.
void worker_lost(master_pointer self, const caf::down_msg& dm) {
  auto t = self->state.task_of.find(dm.source);
  if (t == self->state.task_of.end()) return;
  const std::string task = t->second;
  const status why =
      errors::unavailable("task ", task, " was lost (", self->home_system().render(dm.reason), ")")
          .with_source(task_source(task));
  self->state.lost[task] = why;
  forget_peer(self->state, task);
  // A peer that shut down in order is news, not trouble.
  const bool orderly = dm.reason == caf::exit_reason::user_shutdown ||
                       dm.reason == caf::exit_reason::normal;
  write_log(orderly ? log_level::info : log_level::warn, own_task(self->state), why.message());
  // A partition of the task that already answered may still have tensors on their way to
  // the others (a Send's bytes travel apart from the answer): its steps fail too, or a Recv
  // could wait for them until the step timeout.
  std::vector<int64_t> touching;
  std::vector<std::pair<int64_t, size_t>> lost;
  for (auto& [id, s] : self->state.steps) {
    bool touches = false;
    for (size_t i = 0; i < s.run->parts.size(); ++i) {
      if (s.run->parts[i].task != task) continue;
      touches = true;
      if (!s.replied[i]) lost.emplace_back(id, i);
    }
    if (touches) touching.push_back(id);
  }
  for (int64_t id : touching)
    if (self->state.steps.count(id)) step_failed(self, id, why);
  for (auto [id, i] : lost)
    if (self->state.steps.count(id)) partition_done(self, id, i);
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
      if (!uses) {
        ++it;
        continue;
      }
      release_run(*it->second);  // the lost task's own are gone with it or dropped on the way
      it = s.cache.erase(it);
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
    client.fail(why);
    return;
  }
  auto pending = std::make_shared<size_t>(tasks.size());
  auto shared_req = std::make_shared<run_step_request>(std::move(req));
  for (const auto& task : tasks) {
    auto hp = split_host_port(st.opts.addresses.at(task));
    if (!hp.ok()) {
      client.fail(hp.get_status());
      return;
    }
    self->request(st.opts.resolver, st.opts.rpc_timeout, cf_resolve_atom::value, hp->host, hp->port,
                  worker_role)
        .then(
            [=](caf::strong_actor_ptr& found) {
              auto worker = caf::actor_cast<worker_actor>(found);
              if (worker) {
                self->state.opts.workers[task] = worker;
                forget_peer(self->state, task);  // a new life may have other devices
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
    client.fail(errors::not_found("no session '", req.session, "'"));
    return;
  }
  master_session& s = it->second;
  if (status gone = required_task_lost(self->state, s); !gone.ok()) {
    if (may_resolve)
      resolve_lost_then_retry(self, std::move(req), client, gone);
    else
      client.fail(gone);
    return;
  }
  const std::string key = run_signature_key(req.feed_names, req.fetches, req.targets);
  auto cached = s.cache.find(key);
  // A plan that failed to register (a task restarted, a worker refused) is planned again.
  if (cached != s.cache.end() && !cached->second->failed.ok()) {
    release_run(*cached->second);
    s.cache.erase(cached);
    cached = s.cache.end();
  }
  if (cached == s.cache.end()) {
    auto run = std::make_shared<prepared_run>();
    cached = s.cache.emplace(key, run).first;
    plan_then_register(self, run, req.session, req);
  }
  auto run = cached->second;
  // A step starts once its signature's partitions are planned and registered. One that fails
  // for want of a lost task looks the lost tasks up again first (a restarted task).
  auto launch = [=](run_step_request r) mutable {
    if (!run->failed.ok() && may_resolve && !self->state.lost.empty())
      return resolve_lost_then_retry(self, std::move(r), client, run->failed);
    if (run->failed.ok())
      if (status st = check_feeds(*run, r); !st.ok()) {
        client.fail(st);
        return;
      }
    start_step(self, run, std::move(r), client);
  };
  if (run->ready || !run->failed.ok())
    launch(std::move(req));
  else
    run->waiting.push_back([launch, req = std::move(req)]() mutable { launch(std::move(req)); });
}

// Keeps the newest value of each tag (sorted by tag), and where the events go.
void note_summaries(summary_report& kept, summary_report r) {
  if (!r.logdir.empty()) kept.logdir = std::move(r.logdir);
  if (!r.file.empty()) kept.file = std::move(r.file);
  for (summary_scalar& v : r.scalars) {
    auto at = std::lower_bound(kept.scalars.begin(), kept.scalars.end(), v.tag,
                               [](const summary_scalar& a, const std::string& t) { return a.tag < t; });
    if (at != kept.scalars.end() && at->tag == v.tag) {
      if (v.step >= at->step) *at = std::move(v);
    } else {
      kept.scalars.insert(at, std::move(v));
    }
  }
}

// What the admin shows of this master: sessions, their cached partitions and step latency.
master_snapshot snapshot(const master_state& st) {
  master_snapshot m;
  for (const auto& [handle, s] : st.sessions) {
    session_summary sum{handle, s.full ? static_cast<int64_t>(s.full->num_nodes()) : 0,
                        static_cast<int64_t>(s.cache.size()), {}, s.latency.summary(), {},
                        s.summaries};
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
      [=](cf_create_atom, std::string& serialized,
          session_config& config) -> caf::result<std::string> {
        auto own = device_filters::parse(config.device_filters);
        if (!own.ok()) return to_caf_error(own.get_status().with_context("session options"));
        // Made after every early return: a request whose promise exists answers only through it.
        auto promise = self->make_response_promise<std::string>();
        device_filters filters = self->state.opts.filters.narrowed_by(*own);
        // Placement needs the devices of every task the session may use: the tasks not yet
        // contacted are contacted now, and asked.
        const auto scope = tasks_in_scope(self->state, filters);
        // The graph waits for the peers' answers in one shared copy, whatever copies the
        // continuation.
        auto bytes = std::make_shared<const std::string>(std::move(serialized));
        with_peers(self, scope, [=, config = std::move(config)]() mutable {
          master_session s;
          s.filters = filters;
          status st = canonical_tasks(self->state, config.required_tasks);
          for (const auto& task : config.required_tasks)
            if (st.ok() && std::find(scope.begin(), scope.end(), task) == scope.end())
              st = errors::invalid_argument("required task '", task,
                                            "' is outside the device filters (",
                                            filters.to_string(), ")");
          if (st.ok()) {
            s.config = std::move(config);
            st = extend_session(s, *bytes);
          }
          if (!st.ok()) {
            promise.deliver(to_caf_error(st));
            return;
          }
          std::string handle = "session_" + std::to_string(self->state.next_session++);
          self->state.sessions.emplace(handle, std::move(s));
          promise.deliver(std::move(handle));
        });
        return promise;
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
        step_client client{promise, in_other_process(reply_to, self) ? reply_to : nullptr, nullptr};
        if (status st = claim_chunked_feeds(self->state.arrivals, req); !st.ok()) {
          promise.deliver(to_caf_error(st));
          return promise;
        }
        handle_step(self, std::move(req), std::move(client), true);
        return promise;
      },
      [=](cf_step_atom, run_step_request& req, const local_step_promise_ptr& answer) {
        step_client client{{}, nullptr, answer};
        // A session of this process hands its feeds over as they are: none come in chunks.
        handle_step(self, std::move(req), std::move(client), true);
      },
      [=](cf_chunk_atom, const edge_chunk& c) {
        // A refused transfer is reported when its message claims the value.
        (void)self->state.arrivals.take(c);
      },
      [=](cf_close_atom, const std::string& session) -> caf::result<bool> {
        auto it = self->state.sessions.find(session);
        if (it == self->state.sessions.end())
          return to_caf_error(errors::not_found("no session '", session, "'"));
        for (const auto& [key, run] : it->second.cache) release_run(*run);
        self->state.sessions.erase(it);
        return true;
      },
      [=](cf_inspect_atom) -> master_snapshot { return snapshot(self->state); },
      [=](cf_summary_atom, const std::string& session, summary_report& r) {
        auto it = self->state.sessions.find(session);
        if (it == self->state.sessions.end()) return;  // closed meanwhile: nothing to show
        note_summaries(it->second.summaries, std::move(r));
      },
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
