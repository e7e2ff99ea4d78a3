#include "actors/worker.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/admin_queries.hpp"
#include "actors/bulk_receiver.hpp"
#include "actors/bulk_sender.hpp"
#include "actors/chunked_values.hpp"
#include "actors/executor.hpp"
#include "actors/log.hpp"
#include "actors/remote_rendezvous.hpp"
#include "actors/rendezvous_actor.hpp"
#include "actors/step_masters.hpp"
#include "actors/trace_recorder.hpp"
#include "graph/device_name.hpp"
#include "graph/partition.hpp"
#include "graph/serialization.hpp"
#include "graph/thread_sanitizer.hpp"
#include "kernels/local_rendezvous.hpp"
#include "net/errors.hpp"

namespace caflow {
namespace {

// A run finished and left its result in its run_frame. The executor's done callback sends it,
// from whatever thread that runs on, so the promise is delivered on the worker's own thread.
using cf_run_done_atom = caf::atom_constant<caf::atom("cf_rundone")>;
using worker_impl = worker_actor::extend<caf::reacts_to<cf_run_done_atom, uint64_t>>;

// Fetches one run may ask for: bounds what a malformed request makes the worker allocate.
constexpr int32_t max_rets = 1 << 20;
// How long an exiting worker waits for its cancelled steps before giving up on them.
constexpr std::chrono::seconds shutdown_patience{30};

struct registered_graph {
  std::string handle;
  std::string session;
  std::unique_ptr<executor> exec;
  std::vector<std::string> recv_keys;
  std::set<std::string> send_keys;
  std::vector<int64_t> arg_indices;
  int64_t rets_needed = 0;  // 1 + the highest _Retval index
  // Replaced by each bind; a graph without _Sends runs with the one made at registration.
  std::shared_ptr<remote_rendezvous> rdv;
  bool bound = false;
  int running = 0;
  bool retired = false;  // deregistered: released once `running` drops to 0
};
using graph_ptr = std::shared_ptr<registered_graph>;

// What a run shares with the executor's callbacks. Owned jointly, so nothing here is freed
// under a kernel; it holds nothing that must not be freed on a device thread.
struct run_frame {
  call_frame frame;
  status result;
  std::shared_ptr<cancellation_manager> cancel;
  std::shared_ptr<remote_rendezvous> rdv;
};

struct pending_run {
  int64_t step_id = 0;
  graph_ptr graph;  // keeps the executor alive until the run is over
  std::shared_ptr<run_frame> run;
  caf::typed_response_promise<run_graph_reply> promise;
  caf::strong_actor_ptr reply_to;  // in another process: big fetches go ahead in chunks
};

struct step_record {
  std::shared_ptr<cancellation_manager> cancel = std::make_shared<cancellation_manager>();
  status aborted;  // the root cause, once aborted
  int running = 0;
  int expected_runs = 0;  // run_graph_request::runs_here; 0: the master cleans the step up
  int succeeded = 0;
  bool cleanup_requested = false;
  std::vector<graph_ptr> graphs;  // asked to run in this step: whose edges to clean up
};

// Runs handed to device threads, so an exiting worker can wait for them before its executors
// and device go away.
struct run_counter {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;

  void start() {
    std::lock_guard<std::mutex> lock(mu);
    ++running;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mu);
    if (--running == 0) cv.notify_all();
  }
  bool wait_idle(std::chrono::seconds patience) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, patience, [this] { return running == 0; });
  }
};

struct edge_endpoint {
  caf::actor actor;
  int graphs = 0;  // registered graphs receiving through it
};

struct session_kernels {
  std::unique_ptr<kernel_cache> cache = std::make_unique<kernel_cache>();
  int graphs = 0;
};

struct worker_state {
  // First, so it is destroyed last: executors run kernels on it.
  std::unique_ptr<cpu_device> cpu;
  std::string task_name;  // "/job:J/replica:0/task:T"
  uint64_t incarnation = 0;
  int max_pending_steps_per_edge = 8;
  std::chrono::milliseconds stale_value_after{0};
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<run_counter> counter = std::make_shared<run_counter>();
  std::map<std::string, session_kernels> sessions;
  std::unordered_map<std::string, edge_endpoint> endpoints;  // by recv key
  std::unordered_map<std::string, graph_ptr> graphs;         // by handle
  std::unordered_map<int64_t, step_record> steps;
  step_masters masters;  // who runs each step: a lost master's steps end here too
  std::unordered_map<uint64_t, pending_run> runs;
  chunked_arrivals chunked_args;  // big feeds from masters in other processes, by step
  // Steps cleaned up here: late values for them are dropped, late work refused.
  std::shared_ptr<finished_steps> finished = std::make_shared<finished_steps>();
  // Those of them that did not succeed here: tensors still queued for them are dropped.
  std::shared_ptr<finished_steps> abandoned = std::make_shared<finished_steps>();
  uint64_t next_graph = 1;
  uint64_t next_run = 1;
  std::shared_ptr<trace_recorder> trace;  // the console's `trace on|off`, for every executor
  // Big cut-edge tensors to and from other processes (null: through CAF).
  std::unique_ptr<bulk_receiver> bulk_in;
  std::shared_ptr<bulk_sender> bulk_out;
  static inline const char* name = "caflow.worker";

  worker_state() = default;
  worker_state(const worker_state&) = delete;
  worker_state& operator=(const worker_state&) = delete;
  ~worker_state();

  // Aborts a step on this task: pending _Recvs wake with `reason`, running kernels see the
  // cancellation, and later runs of the step are refused with `reason`.
  void abort_here(int64_t step_id, const status& reason) {
    if (finished->contains(step_id)) return;
    step_record& s = steps[step_id];
    if (!s.aborted.ok()) return;
    write_log(log_level::debug, task_name, "step ", step_id, " aborted: ", reason.to_string());
    s.aborted = reason;
    // Before the cancellation, whose _Recv callbacks would abort with a plain "cancelled".
    local->abort_step(step_id, reason);
    s.cancel->cancel();
  }
};

using worker_pointer = worker_impl::stateful_pointer<worker_state>;

worker_state::~worker_state() {
  if (!cpu) return;  // never initialized
  const status gone = errors::unavailable("the worker of task ", task_name, " is shutting down");
  for (auto& [step_id, s] : steps) {
    if (s.aborted.ok()) {
      s.aborted = gone;
      local->abort_step(step_id, gone);
    }
    s.cancel->cancel();
  }
  for (auto& [run_id, r] : runs) r.promise.deliver(to_caf_error(gone));
  if (!counter->wait_idle(shutdown_patience)) {
    // A kernel ignoring its cancellation still runs: leak what it may touch rather than free
    // it under it.
    write_log(log_level::error, task_name, "the worker still runs steps ",
              static_cast<long long>(shutdown_patience.count()),
              " s after it was stopped; its device and graphs are leaked");
    auto* keep = new std::vector<graph_ptr>;
    for (auto& [handle, g] : graphs) keep->push_back(g);
    for (auto& [run_id, r] : runs) keep->push_back(r.graph);
    static_cast<void>(cpu.release());
  }
  for (auto& [key, e] : endpoints) caf::anon_send_exit(e.actor, caf::exit_reason::user_shutdown);
}

std::string hex(uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

uint64_t random_incarnation() {
  std::random_device rd;
  std::mt19937_64 gen(
      (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  uint64_t x = 0;
  while (x == 0) x = gen();
  return x;
}

// Records what the runtime needs of one node of a partition and checks it belongs here.
status read_node(const worker_state& st, const node_def& n, registered_graph& g,
                 std::set<std::string>& recv_seen) {
  const std::string& dev = st.cpu->name();
  if (n.device != dev)
    return errors::invalid_argument("node '", n.name, "' (", n.op, ") is placed on '", n.device,
                                    "', not on the partition's device");
  if (n.op == "_Arg" || n.op == "_Retval") {
    int64_t index = 0;
    CAFLOW_RETURN_IF_ERROR(get_attr(n, "index", &index));
    if (index < 0 || index >= max_rets)
      return errors::invalid_argument("node '", n.name, "' (", n.op, ") has index ", index);
    if (n.op == "_Arg")
      g.arg_indices.push_back(index);
    else
      g.rets_needed = std::max(g.rets_needed, index + 1);
    return {};
  }
  if (n.op != "_Send" && n.op != "_Recv") return {};
  const std::string key = rendezvous_key(n);
  CAFLOW_ASSIGN_OR_RETURN(parsed_rendezvous_key k, parse_rendezvous_key(key));
  if (n.op == "_Send") {
    if (k.send_device != dev)
      return errors::invalid_argument("node '", n.name, "' (_Send) sends from ", k.send_device,
                                      ", not from the partition's device");
    if (k.send_device_incarnation != 0 && k.send_device_incarnation != st.incarnation)
      return errors::failed_precondition(
          "node '", n.name, "' (_Send) was partitioned for incarnation ",
          hex(k.send_device_incarnation), " of ", dev, ", but task ", st.task_name,
          " is incarnation ", hex(st.incarnation), " (it restarted): partition again");
    if (!g.send_keys.insert(key).second)
      return errors::invalid_argument("node '", n.name, "' (_Send) repeats the key '", key, "'");
    return {};
  }
  if (k.recv_device != dev)
    return errors::invalid_argument("node '", n.name, "' (_Recv) receives on ", k.recv_device,
                                    ", not on the partition's device");
  if (!recv_seen.insert(key).second)
    return errors::invalid_argument("node '", n.name, "' (_Recv) repeats the key '", key, "'");
  g.recv_keys.push_back(key);
  return {};
}

status_or<graph_ptr> compile_partition(worker_state& st, const register_graph_request& req) {
  if (req.device != st.cpu->name())
    return errors::invalid_argument("it was sent to the worker of task ", st.task_name,
                                    ", whose only device is ", st.cpu->name());
  CAFLOW_ASSIGN_OR_RETURN(graph_def def, deserialize_graph(req.graph, st.cpu->get_allocator()));
  CAFLOW_ASSIGN_OR_RETURN(graph built, graph::build(std::move(def)));
  auto g = std::make_shared<registered_graph>();
  g->session = req.session;
  std::set<std::string> recv_seen;
  for (const graph_node& n : built.nodes())
    CAFLOW_RETURN_IF_ERROR(read_node(st, *n.def, *g, recv_seen));
  session_kernels& kernels = st.sessions[req.session];
  auto ex = executor::create(std::make_shared<const graph>(std::move(built)), *st.cpu,
                             kernels.cache.get());
  if (!ex.ok()) {
    if (kernels.graphs == 0) st.sessions.erase(req.session);
    return ex.get_status();
  }
  ++kernels.graphs;
  g->exec = std::move(ex).value();
  g->exec->set_trace(st.trace);
  return g;
}

status check_bindings(const registered_graph& g, const bind_request& req) {
  if (req.send_keys.size() != req.send_endpoints.size())
    return errors::invalid_argument("binding graph '", g.handle, "': ", req.send_keys.size(),
                                    " send keys but ", req.send_endpoints.size(), " endpoints");
  if (!req.send_bulk.empty() && req.send_bulk.size() != req.send_keys.size())
    return errors::invalid_argument("binding graph '", g.handle, "': ", req.send_keys.size(),
                                    " send keys but ", req.send_bulk.size(),
                                    " bulk endpoints");
  std::set<std::string> seen;
  for (size_t i = 0; i < req.send_keys.size(); ++i) {
    const std::string& key = req.send_keys[i];
    if (!g.send_keys.count(key))
      return errors::invalid_argument("graph '", g.handle, "' has no _Send with the key '", key,
                                      "'");
    if (!seen.insert(key).second)
      return errors::invalid_argument("binding graph '", g.handle, "': the key '", key,
                                      "' is bound twice");
    if (!req.send_endpoints[i])
      return errors::invalid_argument("binding graph '", g.handle, "': the key '", key,
                                      "' is bound to an invalid actor handle");
  }
  for (const std::string& key : g.send_keys)
    if (!seen.count(key))
      return errors::invalid_argument("binding graph '", g.handle, "' leaves the _Send key '", key,
                                      "' unbound");
  return {};
}

status check_run(const worker_state& st, const registered_graph& g, const run_graph_request& req,
                 const std::vector<tensor>& args) {
  if (st.finished->contains(req.step_id))
    return errors::failed_precondition("step ", req.step_id, " is already over on task ",
                                       st.task_name, ": a master must not reuse step ids");
  if (!g.bound && !g.send_keys.empty())
    return errors::failed_precondition("graph '", g.handle, "' is not bound: its _Send key '",
                                       *g.send_keys.begin(), "' has no rendezvous actor");
  if (req.num_rets < g.rets_needed || req.num_rets > max_rets)
    return errors::invalid_argument("graph '", g.handle, "' writes ", g.rets_needed,
                                    " fetches but step ", req.step_id, " asks for ", req.num_rets);
  for (int64_t index : g.arg_indices) {
    if (index >= static_cast<int64_t>(args.size()) || !args[index].initialized())
      return errors::invalid_argument("graph '", g.handle, "' needs feed #", index, ", which step ",
                                      req.step_id, " does not carry");
    tsan_acquire(args[index].raw_data());  // written by the client or a kernel, on its thread
  }
  return {};
}

// Drops a deregistered graph's share of the edges' actors and of its session's kernels.
void release_graph(worker_state& st, const registered_graph& g) {
  for (const std::string& key : g.recv_keys) {
    auto e = st.endpoints.find(key);
    if (e == st.endpoints.end() || --e->second.graphs > 0) continue;
    if (st.bulk_in) st.bulk_in->unroute(e->second.actor.id());
    caf::anon_send_exit(e->second.actor, caf::exit_reason::user_shutdown);
    st.endpoints.erase(e);
  }
  auto s = st.sessions.find(g.session);
  if (s != st.sessions.end() && --s->second.graphs == 0) st.sessions.erase(s);
}

// Forgets a step whose runs here are over, and has every rendezvous actor that may hold one
// of its values drop it. After runs that all succeeded (`succeeded`) no actor holds one: each
// of their _Recvs took its value, and each edge carries one value per step.
void finish_step(worker_pointer self, int64_t step_id, bool succeeded = false) {
  auto& st = self->state;
  std::vector<graph_ptr> graphs;
  if (auto it = st.steps.find(step_id); it != st.steps.end()) {
    graphs = std::move(it->second.graphs);
    st.steps.erase(it);
  }
  st.masters.remove(step_id);
  // Marked before the rendezvous actors hear of it, so that they drop the step's late values.
  st.finished->add(step_id);
  st.chunked_args.forget(step_id);
  st.local->cleanup_step(step_id);
  if (succeeded) return;
  st.abandoned->add(step_id);
  if (graphs.empty()) {  // no run here (refused or never sent): any edge may hold a value
    for (auto& [key, e] : st.endpoints) caf::anon_send(e.actor, cf_cleanup_atom::value, step_id);
    return;
  }
  std::sort(graphs.begin(), graphs.end());
  graphs.erase(std::unique(graphs.begin(), graphs.end()), graphs.end());
  for (const graph_ptr& g : graphs)
    for (const std::string& key : g->recv_keys)
      if (auto e = st.endpoints.find(key); e != st.endpoints.end())
        caf::anon_send(e->second.actor, cf_cleanup_atom::value, step_id);
}

// A master that ran steps here is gone (its process died, or the link to it broke): its abort
// and cleanup cannot come any more, so its steps are aborted and cleaned up here.
void master_lost(worker_pointer self, const caf::down_msg& dm) {
  auto& st = self->state;
  const auto steps = st.masters.lost(dm.source);
  if (steps.empty()) return;
  const status why = errors::aborted("the master that ran the step here was lost (",
                                     self->home_system().render(dm.reason), ")");
  write_log(log_level::warn, st.task_name, "a master was lost (",
            self->home_system().render(dm.reason), "); aborting its ", steps.size(),
            " steps here");
  for (int64_t step_id : steps) {
    st.abort_here(step_id, why);
    auto it = st.steps.find(step_id);
    if (it != st.steps.end() && it->second.running > 0)
      it->second.cleanup_requested = true;  // once its runs have answered the abort
    else
      finish_step(self, step_id);
  }
}

caf::result<run_graph_reply> start_run(worker_pointer self, const run_graph_request& req) {
  auto& st = self->state;
  auto found = st.graphs.find(req.graph_handle);
  if (found == st.graphs.end())
    return to_caf_error(errors::not_found("no graph '", req.graph_handle,
                                          "' is registered on task ", st.task_name));
  const graph_ptr& g = found->second;
  std::vector<tensor> args;
  args.reserve(req.args.size());
  for (const wire_tensor& a : req.args) args.push_back(a.value);
  for (int32_t i : req.chunked_args) {
    auto arrived = st.chunked_args.claim(req.step_id, chunk_key("arg", static_cast<size_t>(i)));
    if (!arrived.ok()) return to_caf_error(arrived.get_status().with_context("task " + st.task_name));
    if (i < 0 || static_cast<size_t>(i) >= args.size())
      return to_caf_error(errors::invalid_argument("feed #", i, " of step ", req.step_id,
                                                   " came in chunks but the step has ",
                                                   args.size(), " feeds"));
    args[static_cast<size_t>(i)] = std::move(arrived).value();
  }
  if (status bad = check_run(st, *g, req, args); !bad.ok()) return to_caf_error(bad);
  step_record& s = st.steps[req.step_id];
  s.graphs.push_back(g);
  s.expected_runs = std::max(s.expected_runs, req.runs_here);
  if (!s.aborted.ok()) return to_caf_error(s.aborted);

  auto run = std::make_shared<run_frame>();
  run->frame.args = std::move(args);
  run->frame.rets.resize(static_cast<size_t>(req.num_rets));
  run->cancel = s.cancel;
  run->rdv = g->rdv;
  const uint64_t run_id = st.next_run++;
  // Where the reply goes (the last forwarding stage, else the sender): another process?
  // Read before make_response_promise, which moves the sender out of the request.
  caf::strong_actor_ptr reply_to = reply_destination(self);
  if (reply_to && st.masters.add(caf::actor_cast<caf::actor_addr>(reply_to), req.step_id))
    self->monitor(reply_to);
  if (!in_other_process(reply_to, self)) reply_to = nullptr;
  auto promise = self->make_response_promise<run_graph_reply>();
  st.runs.emplace(run_id, pending_run{req.step_id, g, run, promise, std::move(reply_to)});
  ++s.running;
  ++g->running;
  st.counter->start();
  // Light nodes start here; the executor hands every other node to the device's threads.
  executor::actor_thread_scope on_actor;
  g->exec->run_async({req.step_id, &run->frame, run->cancel.get(), run->rdv.get()},
                     [run, run_id, counter = st.counter,
                      me = caf::actor_cast<worker_impl>(self)](const status& result) {
                       run->result = result;
                       caf::anon_send(me, cf_run_done_atom::value, run_id);
                       counter->finish();
                     });
  return promise;
}

void run_done(worker_pointer self, uint64_t run_id) {
  auto& st = self->state;
  auto it = st.runs.find(run_id);
  if (it == st.runs.end()) return;
  pending_run r = std::move(it->second);
  st.runs.erase(it);
  step_record& s = st.steps.at(r.step_id);
  const status& result = r.run->result;
  if (result.ok()) {
    run_graph_reply reply;
    reply.rets.reserve(r.run->frame.rets.size());
    for (size_t i = 0; i < r.run->frame.rets.size(); ++i) {
      tensor& t = r.run->frame.rets[i];
      if (r.reply_to && travels_in_chunks(t)) {
        // Ahead of the reply, which the same actor sends the same way: they arrive in order.
        send_chunks(self, caf::actor_cast<master_actor>(r.reply_to), r.step_id,
                    chunk_key("ret", i), t);
        reply.chunked_rets.push_back(static_cast<int32_t>(i));
        reply.rets.emplace_back();
      } else {
        reply.rets.push_back(wire_tensor{std::move(t)});
      }
    }
    r.promise.deliver(std::move(reply));
  } else if (!s.aborted.ok()) {
    // Woken by the abort: the root cause says more than this task's echo of it.
    r.promise.deliver(to_caf_error(s.aborted));
  } else {
    // Kernel errors name node, op and device, and so the task.
    const bool names_task = result.message().find(st.task_name) != std::string::npos;
    r.promise.deliver(
        to_caf_error(names_task ? result : result.with_context("task " + st.task_name)));
  }
  if (result.ok()) ++s.succeeded;
  --r.graph->running;
  if (r.graph->retired && r.graph->running == 0) release_graph(st, *r.graph);
  if (--s.running > 0) return;
  if (s.cleanup_requested)
    finish_step(self, r.step_id);
  else if (s.expected_runs > 0 && s.succeeded == s.expected_runs && s.aborted.ok())
    finish_step(self, r.step_id, true);
}

worker_impl::behavior_type worker(worker_pointer self, worker_options opts) {
  auto& st = self->state;
  st.cpu =
      std::make_unique<cpu_device>(full_device_name(opts.job, opts.task, device_cpu, 0), opts.cpu);
  st.task_name = "/job:" + opts.job + "/replica:0/task:" + std::to_string(opts.task);
  st.incarnation = opts.incarnation != 0 ? opts.incarnation : random_incarnation();
  st.max_pending_steps_per_edge = opts.max_pending_steps_per_edge;
  st.stale_value_after = opts.stale_value_after;
  st.trace = std::make_shared<trace_recorder>(st.task_name);
  self->set_down_handler([self](caf::down_msg& dm) { master_lost(self, dm); });
  if (!opts.bulk_host.empty()) {
    auto bulk = bulk_receiver::start(opts.bulk_host, st.task_name);
    if (bulk.ok()) {
      st.bulk_in = std::move(bulk).value();
      st.bulk_out = std::make_shared<bulk_sender>(st.task_name, st.abandoned);
    } else {
      write_log(log_level::warn, st.task_name, "no bulk channel, big tensors go through CAF: ",
                bulk.get_status().message());
    }
  }
  return {
      [self](cf_reg_graph_atom,
             const register_graph_request& req) -> caf::result<register_graph_reply> {
        auto& st = self->state;
        auto compiled = compile_partition(st, req);
        if (!compiled.ok())
          return to_caf_error(compiled.get_status().with_context("partition for " + req.device));
        graph_ptr g = std::move(compiled).value();
        g->handle = st.task_name + "/graph_" + std::to_string(st.next_graph++);
        g->rdv =
            std::make_shared<remote_rendezvous>(st.local, *st.cpu, remote_rendezvous::bindings{});
        register_graph_reply reply{g->handle, st.incarnation, g->recv_keys, {},
                                   st.bulk_in ? st.bulk_in->endpoint() : bulk_endpoint{}};
        for (const std::string& key : g->recv_keys) {
          edge_endpoint& e = st.endpoints[key];
          if (!e.actor) {
            e.actor = spawn_rendezvous_actor(self->home_system(), key, st.local, st.finished,
                                             st.max_pending_steps_per_edge, st.stale_value_after);
            if (st.bulk_in) st.bulk_in->route(e.actor);
          }
          ++e.graphs;
          reply.recv_endpoints.push_back(e.actor);
        }
        st.graphs.emplace(g->handle, std::move(g));
        return reply;
      },
      [self](cf_bind_atom, const bind_request& req) -> caf::result<bool> {
        auto& st = self->state;
        auto found = st.graphs.find(req.graph_handle);
        if (found == st.graphs.end())
          return to_caf_error(errors::not_found("no graph '", req.graph_handle,
                                                "' is registered on task ", st.task_name));
        registered_graph& g = *found->second;
        if (status bad = check_bindings(g, req); !bad.ok()) return to_caf_error(bad);
        remote_rendezvous::bindings sends;
        for (size_t i = 0; i < req.send_keys.size(); ++i)
          sends.emplace(req.send_keys[i],
                        remote_rendezvous::binding{req.send_endpoints[i],
                                                   req.send_bulk.empty() ? bulk_endpoint{}
                                                                         : req.send_bulk[i]});
        g.rdv = std::make_shared<remote_rendezvous>(st.local, *st.cpu, std::move(sends),
                                                    st.bulk_out);
        g.bound = true;
        return true;
      },
      [self](cf_run_graph_atom, const run_graph_request& req) -> caf::result<run_graph_reply> {
        return start_run(self, req);
      },
      [self](cf_chunk_atom, const edge_chunk& c) {
        auto& st = self->state;
        if (st.finished->contains(c.step_id)) return;
        // A refused transfer fails the step when its run claims the value.
        (void)st.chunked_args.take(c);
      },
      [self](cf_abort_atom, int64_t step_id, const std::string& reason) {
        self->state.abort_here(step_id, status_from_text(reason));
      },
      [self](cf_cleanup_atom, int64_t step_id) {
        auto& st = self->state;
        if (st.finished->contains(step_id)) return;
        auto it = st.steps.find(step_id);
        if (it != st.steps.end() && it->second.running > 0) {
          it->second.cleanup_requested = true;
          return;
        }
        finish_step(self, step_id);
      },
      [self](cf_dereg_atom, const std::string& handle) -> caf::result<bool> {
        auto& st = self->state;
        auto found = st.graphs.find(handle);
        if (found == st.graphs.end())
          return to_caf_error(
              errors::not_found("no graph '", handle, "' is registered on task ", st.task_name));
        graph_ptr g = std::move(found->second);
        st.graphs.erase(found);
        g->retired = true;
        if (g->running == 0) release_graph(st, *g);
        return true;
      },
      [self](cf_run_done_atom, uint64_t run_id) { run_done(self, run_id); },
      [self](cf_inspect_atom, const admin_query& q) -> caf::result<admin_reply> {
        auto& st = self->state;
        worker_view view{st.task_name, st.cpu.get(), {}, st.trace.get()};
        for (const auto& [handle, g] : st.graphs) view.graphs.push_back(g->exec.get());
        auto reply = answer_worker_query(view, q);
        if (!reply.ok()) return to_caf_error(reply.get_status());
        return std::move(reply).value();
      },
  };
}

}  // namespace

worker_actor spawn_worker(caf::actor_system& sys, const worker_options& opts) {
  return sys.spawn(worker, opts);
}

}  // namespace caflow
