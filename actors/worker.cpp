#include "actors/worker.hpp"
#include "actors/worker_state.hpp"

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
#include "devices/device_factory.hpp"
#include "actors/executor.hpp"
#include "actors/log.hpp"
#include "actors/remote_rendezvous.hpp"
#include "actors/rendezvous_actor.hpp"
#include "actors/step_masters.hpp"
#include "actors/trace_recorder.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/serialization.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "kernels/local_rendezvous.hpp"
#include "net/errors.hpp"

namespace caflow::worker_internal {

worker_state::~worker_state() {
  if (devices.empty()) return;  // never initialized
  const status gone = errors::unavailable("the worker of task ", task_name, " is shutting down");
  for (auto& [step_id, s] : steps) {
    if (s.aborted.ok()) {
      s.aborted = gone;
      local->abort_step(step_id, gone);
    }
    s.cancel->cancel();
  }
  for (auto& [run_id, r] : runs)  // not those that answered by themselves (run_answer)
    if (!r.run->answered.exchange(true, std::memory_order_acq_rel))
      r.promise.deliver(to_caf_error(gone));
  if (!counter->wait_idle(shutdown_patience)) {
    // A kernel ignoring its cancellation still runs: leak what it may touch rather than free
    // it under it.
    write_log(log_level::error, task_name, "the worker still runs steps ",
              static_cast<long long>(shutdown_patience.count()),
              " s after it was stopped; its device and graphs are leaked");
    auto* keep = new std::vector<graph_ptr>;
    for (auto& [handle, g] : graphs) keep->push_back(g);
    for (auto& [run_id, r] : runs) keep->push_back(r.graph);
    for (task_device& d : devices) new std::shared_ptr<device>(d.dev);
  }
  for (task_device& d : devices) caf::anon_send_exit(d.actor, caf::exit_reason::user_shutdown);
  for (auto& [key, e] : endpoints) caf::anon_send_exit(e.actor, caf::exit_reason::user_shutdown);
}

namespace {

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
status read_node(const worker_state& st, const std::string& dev, const node_def& n,
                 registered_graph& g, std::set<std::string>& recv_seen) {
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

std::string device_names(const worker_state& st) {
  std::string out;
  for (const task_device& d : st.devices) out += (out.empty() ? "" : ", ") + d.dev->name();
  return out;
}

status_or<graph_ptr> compile_partition(worker_state& st, const register_graph_request& req) {
  const task_device* target = st.find_device(req.device);
  if (!target)
    return errors::invalid_argument("it was sent to the worker of task ", st.task_name,
                                    ", which has no such device (it has ", device_names(st), ")");
  CAFLOW_ASSIGN_OR_RETURN(graph_def def, deserialize_graph(req.graph, st.cpu().get_allocator()));
  CAFLOW_ASSIGN_OR_RETURN(graph built, graph::build(std::move(def)));
  auto g = std::make_shared<registered_graph>();
  g->session = req.session;
  g->dev = target->actor;
  g->start_here = target->dev->memory() == nullptr;
  std::set<std::string> recv_seen;
  for (const graph_node& n : built.nodes())
    CAFLOW_RETURN_IF_ERROR(read_node(st, req.device, *n.def, *g, recv_seen));
  session_kernels& kernels = st.sessions[req.session];
  auto ex = executor::create(std::make_shared<const graph>(std::move(built)), *target->dev,
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

}  // namespace

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

namespace {

// The console's `devices`: every device of the task, as its actor reports it.
caf::result<admin_reply> device_table(worker_pointer self, const admin_query& q) {
  auto& st = self->state;
  struct gather {
    worker_view view;
    admin_query query;
    size_t pending = 0;
    caf::typed_response_promise<admin_reply> promise;
  };
  auto g = std::make_shared<gather>();
  g->view.task = st.task_name;
  g->view.device_stats.resize(st.devices.size());
  g->query = q;
  g->pending = st.devices.size();
  g->promise = self->make_response_promise<admin_reply>();
  auto finish = [g] {
    if (--g->pending > 0) return;
    auto reply = answer_worker_query(g->view, g->query);
    if (reply.ok())
      g->promise.deliver(std::move(reply).value());
    else
      g->promise.deliver(to_caf_error(reply.get_status()));
  };
  for (size_t i = 0; i < st.devices.size(); ++i) {
    const std::string name = st.devices[i].dev->name();
    self->request(st.devices[i].actor, std::chrono::seconds(10), cf_dev_stats_atom::value)
        .then([g, i, finish](const device_status& s) {
                g->view.device_stats[i] = s;
                finish();
              },
              [g, i, name, finish](const caf::error&) {
                g->view.device_stats[i] = device_status{name + " (not answering)", "", 0, 0, 0, 0};
                finish();
              });
  }
  return g->promise;
}

worker_impl::behavior_type worker(worker_pointer self, worker_options opts) {
  auto& st = self->state;
  auto made = device_registry::global().make_task_devices(
      {.cpu = opts.cpu, .gpu = opts.gpu, .device_count = opts.device_count}, opts.job, opts.task);
  if (!made.ok()) {
    // Checked by the server before it spawns the worker; a CPU-only task is what remains.
    write_log(log_level::error, "/job:" + opts.job + "/replica:0/task:" + std::to_string(opts.task),
              made.get_status().message(), "; the task runs on its CPU only");
    std::vector<std::unique_ptr<device>> cpu_only;
    cpu_only.push_back(
        std::make_unique<cpu_device>(full_device_name(opts.job, opts.task, device_cpu, 0), opts.cpu));
    made = std::move(cpu_only);
  }
  for (auto& d : *made) {
    std::shared_ptr<device> shared = std::move(d);
    device_actor actor = spawn_device_actor(self->home_system(), shared);
    self->link_to(actor.address());  // ends with the worker, whatever else holds it
    st.devices.push_back({shared, std::move(actor)});
  }
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
  if (opts.shm_segment_bytes > 0) {
    auto shm = shm_receiver::start(st.task_name);
    if (shm.ok()) {
      st.shm_in = std::move(shm).value();
      st.shm_out = std::make_shared<shm_sender>(st.task_name, opts.shm_segment_bytes);
      // Variables the ps's workers read live where the links hand them over without a copy.
      // Set before any kernel runs: devices read it unlocked.
      if (opts.shm_variables)
        for (const task_device& d : st.devices)
          if (d.dev->type() == device_cpu) d.dev->set_variable_home(st.shm_out);
    } else {
      write_log(log_level::warn, st.task_name,
                "no shared memory links, values to tasks on this host go through TCP: ",
                shm.get_status().message());
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
            std::make_shared<remote_rendezvous>(st.local, st.cpu(), remote_rendezvous::bindings{});
        register_graph_reply reply{g->handle, st.incarnation, g->recv_keys, {},
                                   st.bulk_in ? st.bulk_in->endpoint() : bulk_endpoint{}};
        if (st.shm_in) st.shm_in->describe(reply.bulk);
        for (const std::string& key : g->recv_keys) {
          edge_endpoint& e = st.endpoints[key];
          if (!e.actor) {
            e.actor = spawn_rendezvous_actor(self->home_system(), key, st.local, st.finished,
                                             st.shm_in, st.max_pending_steps_per_edge,
                                             st.stale_value_after);
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
        g.rdv = std::make_shared<remote_rendezvous>(st.local, st.cpu(), std::move(sends),
                                                    st.bulk_out, st.shm_out);
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
      [self](cf_abort_atom, int64_t step_id, const step_error& root_cause) {
        self->state.abort_here(step_id, to_status(root_cause));
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
        if (!q.words.empty() && q.words[0] == "devices") return device_table(self, q);
        worker_view view{st.task_name, {}, {}, {}, st.trace.get()};
        for (const task_device& d : st.devices) view.devices.push_back(d.dev.get());
        for (const auto& [handle, g] : st.graphs) view.graphs.push_back(g->exec.get());
        auto reply = answer_worker_query(view, q);
        if (!reply.ok()) return to_caf_error(reply.get_status());
        return std::move(reply).value();
      },
      [self](cf_devices_atom) {
        std::vector<std::string> names;
        for (const task_device& d : self->state.devices) names.push_back(d.dev->name());
        return names;
      },
  };
}

}  // namespace
}  // namespace caflow::worker_internal

namespace caflow {

worker_actor spawn_worker(caf::actor_system& sys, const worker_options& opts) {
  return sys.spawn(worker_internal::worker, opts);
}

}  // namespace caflow
