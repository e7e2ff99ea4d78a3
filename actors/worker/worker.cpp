#include "actors/worker/worker.hpp"
#include "actors/worker/worker_state.hpp"

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

#include "actors/admin/admin_queries.hpp"
#include "net/wire/chunked_values.hpp"
#include "devices/device_factory.hpp"
#include "actors/executor/executor.hpp"
#include "graph/core/log.hpp"
#include "actors/rendezvous/remote_rendezvous.hpp"
#include "actors/rendezvous/rendezvous_actor.hpp"
#include "actors/worker/step_masters.hpp"
#include "net/cluster_spec.hpp"
#include "net/connection_manager.hpp"
#include "net/errors.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/serialization.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "net/errors.hpp"

namespace caflow::worker_internal {

worker_state::~worker_state() {
  if (devices.empty()) return;  // never initialized
  const status gone = errors::unavailable("the worker of task ", task_name, " is shutting down");
  steps->abort_all(gone);
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
    graphs->for_each_graph([keep](const graph_ptr& g) { keep->push_back(g); });
    for (auto& [run_id, r] : runs) keep->push_back(r.graph);
    for (task_device& d : devices) new std::shared_ptr<device>(d.dev);
  }
  for (task_device& d : devices) caf::anon_send_exit(d.actor, caf::exit_reason::user_shutdown);
}

namespace {

uint64_t random_incarnation() {
  std::random_device rd;
  std::mt19937_64 gen(
      (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  uint64_t x = 0;
  while (x == 0) x = gen();
  return x;
}

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

// Connects to `where` for `promise`. Two tasks that connect to each other at the same moment
// may each keep a different connection, and BASP drops both a connection timeout later
// (docs/caf_0.17_notes.md, "Two nodes connecting to each other"): a connect that fails that way
// is tried once more, with the crossed connections gone.
void connect_for_meet(worker_pointer self, caf::typed_response_promise<bool> promise,
                      std::string task, host_port where, int tries_left) {
  self->request(connection_manager(self->home_system()), self->state.meet_timeout,
                caf::connect_atom::value, where.host, where.port)
      .then([promise](const caf::node_id&, caf::strong_actor_ptr&,
                      const std::set<std::string>&) mutable { promise.deliver(true); },
            [self, promise, task, where, tries_left](caf::error& e) mutable {
              if (tries_left > 0)
                return connect_for_meet(self, promise, task, where, tries_left - 1);
              promise.deliver(to_caf_error(errors::unavailable(
                  "task ", self->state.task_name, " cannot connect to ", task, " at ", where.host,
                  ":", where.port, ": ", self->home_system().render(e))));
            });
}

// A master is about to bind partitions of this task that exchange values with `task`: connect
// to it now, so that the rendezvous actors the master hands over have a direct route (BASP
// would otherwise route their values through the master's process). Connecting to a task
// already connected costs one redundant TCP connection, which BASP closes.
caf::result<bool> meet(worker_pointer self, const std::string& task, const std::string& address) {
  auto& st = self->state;
  if (!st.filters.admits_task(task))
    return to_caf_error(errors::permission_denied(
        "task ", st.task_name, " may not connect to ", task, ": its device filters (",
        st.filters.to_string(), ") leave that task out"));
  auto where = split_host_port(address);
  if (!where.ok()) return to_caf_error(where.get_status().with_context("meeting " + task));
  auto promise = self->make_response_promise<bool>();
  connect_for_meet(self, promise, task, *where, 1);
  return promise;
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
  st.filters = opts.filters;
  st.meet_timeout = opts.meet_timeout;
  st.incarnation = opts.incarnation != 0 ? opts.incarnation : random_incarnation();
  st.trace = std::make_shared<trace_recorder>(st.task_name);
  st.steps = std::make_unique<step_table>(st.task_name, st.local);
  self->set_down_handler([self](caf::down_msg& dm) { master_lost(self, dm); });
  st.transport = edge_transport::start({.task = st.task_name,
                                        .bulk_host = opts.bulk_host,
                                        .shm_segment_bytes = opts.shm_segment_bytes,
                                        .abandoned = st.steps->abandoned()});
  st.graphs = std::make_unique<graph_registry>(
      graph_registry_context{.task_name = st.task_name,
                             .incarnation = st.incarnation,
                             .devices = &st.devices,
                             .local = st.local,
                             .finished = st.steps->finished(),
                             .transport = st.transport,
                             .trace = st.trace,
                             .max_pending_steps_per_edge = opts.max_pending_steps_per_edge,
                             .stale_value_after = opts.stale_value_after});
  // Variables the ps's workers read live where the links hand them over without a copy.
  // Set before any kernel runs: devices read it unlocked.
  if (auto home = st.transport->variables_home(); home && opts.shm_variables)
    for (const task_device& d : st.devices)
      if (d.dev->type() == device_cpu) d.dev->set_variable_home(home);
  return {
      [self](cf_reg_graph_atom,
             const register_graph_request& req) -> caf::result<register_graph_reply> {
        const caf::strong_actor_ptr& master = self->current_sender();
        const auto owner = caf::actor_cast<caf::actor_addr>(master);
        auto reply = self->state.graphs->add(self->home_system(), req, owner);
        if (!reply.ok()) return to_caf_error(reply.get_status());
        if (owner && self->state.steps->masters().watch(owner)) self->monitor(master);
        return std::move(reply).value();
      },
      [self](cf_bind_atom, const bind_request& req) -> caf::result<bool> {
        if (status bad = self->state.graphs->bind(req); !bad.ok()) return to_caf_error(bad);
        return true;
      },
      [self](cf_run_graph_atom, const run_graph_request& req) -> caf::result<run_graph_reply> {
        return start_run(self, req);
      },
      [self](cf_chunk_atom, const edge_chunk& c) {
        step_table& steps = *self->state.steps;
        if (steps.over(c.step_id)) return;
        // A refused transfer fails the step when its run claims the value.
        (void)steps.chunked_args().take(c);
      },
      [self](cf_abort_atom, int64_t step_id, const step_error& root_cause) {
        self->state.steps->abort(step_id, to_status(root_cause));
      },
      [self](cf_cleanup_atom, int64_t step_id) {
        step_table& steps = *self->state.steps;
        if (steps.over(step_id)) return;
        if (step_record* s = steps.find(step_id); s && s->running > 0) {
          s->cleanup_requested = true;
          return;
        }
        finish_step(self, step_id);
      },
      [self](cf_dereg_atom, const std::string& handle) -> caf::result<bool> {
        if (status bad = self->state.graphs->remove(handle); !bad.ok()) return to_caf_error(bad);
        return true;
      },
      [self](cf_run_done_atom, uint64_t run_id) { run_done(self, run_id); },
      [self](cf_inspect_atom, const admin_query& q) -> caf::result<admin_reply> {
        auto& st = self->state;
        if (!q.words.empty() && q.words[0] == "devices") return device_table(self, q);
        worker_view view{st.task_name, {}, {}, {}, st.trace.get()};
        for (const task_device& d : st.devices) view.devices.push_back(d.dev.get());
        st.graphs->for_each_graph(
            [&view](const graph_ptr& g) { view.graphs.push_back(g->exec.get()); });
        auto reply = answer_worker_query(view, q);
        if (!reply.ok()) return to_caf_error(reply.get_status());
        return std::move(reply).value();
      },
      [self](cf_devices_atom) {
        std::vector<std::string> names;
        for (const task_device& d : self->state.devices) names.push_back(d.dev->name());
        return names;
      },
      [self](cf_meet_atom, const std::string& task, const std::string& address) {
        return meet(self, task, address);
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
