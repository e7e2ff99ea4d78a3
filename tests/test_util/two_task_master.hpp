#pragma once
// Two workers (tasks 0 and 1 of job "worker"), driven by hand the way a master drives them:
// plan a run signature into one partition per task, register both, bind each _Send to the
// rendezvous actor the other task named, run steps, abort, clean up. Shared by the tests of
// the worker and of chunked transfers. Every request has a finite timeout.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/worker/worker.hpp"
#include "graph/client/scope.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/placer.hpp"
#include "graph/ir/prune.hpp"
#include "graph/ir/serialization.hpp"
#include "graph/platform/time_scale.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "net/errors.hpp"
#include "net/sanitizer_settings.hpp"

namespace caflow::testing::two_tasks {

struct test_config : caf::actor_system_config {
  test_config() {
    load<caf::io::middleman>();
    add_wire_types(*this);
    set("scheduler.max-threads", 2);
    set("scheduler.policy", caf::atom("sharing"));  // as configure_network sets for servers
    apply_sanitizer_settings(*this);
  }
};

inline constexpr auto timeout = std::chrono::seconds(10);
inline const std::string task0 = "/job:worker/replica:0/task:0";
inline const std::string task1 = "/job:worker/replica:0/task:1";
inline const std::string dev0 = full_device_name("worker", 0, "CPU", 0);
inline const std::string dev1 = full_device_name("worker", 1, "CPU", 0);
inline const std::vector<std::string> devices = {dev0, dev1};
inline constexpr uint64_t incarnation0 = 0xa0a0;
inline constexpr uint64_t incarnation1 = 0xb1b1;

inline worker_options options(int task, int max_pending_steps = 8) {
  return {.job = "worker",
          .task = task,
          .cpu = {.intra_op_threads = 1, .inter_op_threads = 2},
          .max_pending_steps_per_edge = max_pending_steps,
          .incarnation = task == 0 ? incarnation0 : incarnation1};
}

// What a master makes of one run signature: a partition per device, or none for a device
// that has no node.
struct plan {
  std::vector<graph_def> parts;  // by task
  size_t num_feeds = 0;
  size_t num_fetches = 0;
};

inline plan make_plan(const scope& root, const run_signature& sig,
               partition_options incarnations = {
                   .incarnations = {{dev0, incarnation0}, {dev1, incarnation1}}}) {
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  auto full = graph::build(root.to_graph_def());
  REQUIRE_MESSAGE(full.ok(), full.get_status().to_string());
  auto pruned = prune_for_run(*full, sig);
  REQUIRE_MESSAGE(pruned.ok(), pruned.get_status().to_string());
  auto g = graph::build(std::move(pruned->def), {.infer_shapes = false});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  auto placement =
      place(*g, devices, {.default_device = task0}, [](const node_def& n, std::string_view type) {
        return kernel_registry::global().has_kernel(n, type);
      });
  REQUIRE_MESSAGE(placement.ok(), placement.get_status().to_string());
  auto parts = partition(*g, *placement, incarnations);
  REQUIRE_MESSAGE(parts.ok(), parts.get_status().to_string());
  plan p{{}, sig.feeds.size(), sig.fetches.size()};
  for (const std::string& d : devices) p.parts.push_back(parts->partitions[d]);
  return p;
}

inline std::vector<std::string> send_keys(const graph_def& part) {
  std::vector<std::string> keys;
  for (const node_def& n : part.nodes)
    if (n.op == "_Send") keys.push_back(rendezvous_key(n));
  return keys;
}

// Waits for one reply; errors come back as the status they carry.
template <class Reply, class Handle>
status_or<Reply> await(Handle&& h) {
  status_or<Reply> out = errors::internal("no reply");
  std::move(h).receive([&](Reply r) { out = std::move(r); },
                       [&](caf::error& e) { out = to_status(e); });
  return out;
}

// `w`, a worker of `home`, published there on a free loopback port and reached from `from`:
// the handle is a proxy, so what the two exchange crosses the middleman.
inline worker_actor reach_over_loopback(caf::actor_system& home, const worker_actor& w,
                                        caf::actor_system& from) {
  auto port = home.middleman().publish(w, 0, "127.0.0.1", true);
  REQUIRE_MESSAGE(port, (port ? std::string{} : home.render(port.error())));
  auto remote = from.middleman().remote_actor<worker_actor>("127.0.0.1", *port);
  REQUIRE_MESSAGE(remote, (remote ? std::string{} : from.render(remote.error())));
  return *remote;
}

// The master's side, by hand: one scoped actor, requests with finite timeouts.
struct hand_master {
  caf::scoped_actor self;
  std::vector<worker_actor> workers;  // by task
  std::chrono::milliseconds wait;     // for every request (stretched under TSan)

  hand_master(caf::actor_system& sys, std::vector<worker_actor> ws,
              std::chrono::milliseconds request_timeout = timeout)
      : self(sys), workers(std::move(ws)), wait(scaled(request_timeout)) {}

  status_or<register_graph_reply> reg(int task, const std::string& device, std::string bytes) {
    return await<register_graph_reply>(
        self->request(workers[task], wait, cf_reg_graph_atom::value,
                      register_graph_request{"session_1", device, std::move(bytes)}));
  }
  status bind(int task, bind_request req) {
    auto r =
        await<bool>(self->request(workers[task], wait, cf_bind_atom::value, std::move(req)));
    return r.ok() ? status{} : r.get_status();
  }
  status dereg(int task, const std::string& handle) {
    auto r = await<bool>(self->request(workers[task], wait, cf_dereg_atom::value, handle));
    return r.ok() ? status{} : r.get_status();
  }
  // `runs_here`, `carry_sends`: see run_graph_request (0: the step waits for cleanup(); false:
  // the worker sends its values as messages of their own).
  auto run_request(int task, const std::string& handle, int64_t step_id, std::vector<tensor> feeds,
                   size_t num_fetches, int32_t runs_here = 0, bool carry_sends = false) {
    run_graph_request req{handle,    step_id,  {}, static_cast<int32_t>(num_fetches),
                          {},        runs_here, carry_sends};
    for (tensor& t : feeds) req.args.push_back(wire_tensor{std::move(t)});
    return self->request(workers[task], wait, cf_run_graph_atom::value, std::move(req));
  }
  void abort(int task, int64_t step_id, const status& why) {
    self->send(workers[task], cf_abort_atom::value, step_id, to_step_error(why));
  }
  void cleanup(int64_t step_id) {
    for (auto& w : workers) self->send(w, cf_cleanup_atom::value, step_id);
  }
  // Every message sent to the task before this one has been handled once it returns.
  void sync(int task) { static_cast<void>(dereg(task, "no such graph")); }

  // Registers both partitions and binds each _Send to the actor the other task named.
  std::vector<std::string> install(const plan& p) {
    std::map<std::string, std::pair<rendezvous_actor, bulk_endpoint>> endpoints;
    std::vector<std::string> handles;
    for (int t = 0; t < 2; ++t) {
      auto reply = reg(t, devices[t], serialize_graph(p.parts[t]));
      REQUIRE_MESSAGE(reply.ok(), reply.get_status().to_string());
      CHECK(reply->incarnation == (t == 0 ? incarnation0 : incarnation1));
      REQUIRE(reply->recv_keys.size() == reply->recv_endpoints.size());
      for (size_t k = 0; k < reply->recv_keys.size(); ++k)
        endpoints[reply->recv_keys[k]] = {reply->recv_endpoints[k], reply->bulk};
      handles.push_back(reply->graph_handle);
    }
    for (int t = 0; t < 2; ++t) {
      bind_request req{handles[t], send_keys(p.parts[t]), {}, {}};
      for (const std::string& key : req.send_keys) {
        REQUIRE_MESSAGE(endpoints.count(key), "no _Recv for ", key);
        req.send_endpoints.push_back(endpoints[key].first);
        req.send_bulk.push_back(endpoints[key].second);
      }
      const status st = bind(t, std::move(req));
      REQUIRE_MESSAGE(st.ok(), st.to_string());
    }
    return handles;
  }

  // One step on both tasks; the fetches merged from both replies (what a master returns). In
  // these graphs only task 1 fails on its own, so its reply is awaited first and its error
  // aborts the step on task 0, whose _Recv would wait for task 1 otherwise.
  status_or<std::vector<tensor>> step(const std::vector<std::string>& handles, int64_t step_id,
                                      const std::vector<tensor>& feeds, size_t num_fetches) {
    auto h0 = run_request(0, handles[0], step_id, feeds, num_fetches);
    auto h1 = run_request(1, handles[1], step_id, feeds, num_fetches);
    auto r1 = await<run_graph_reply>(std::move(h1));
    if (!r1.ok()) abort(0, step_id, r1.get_status());
    auto r0 = await<run_graph_reply>(std::move(h0));
    cleanup(step_id);
    if (!r1.ok()) return r1.get_status();
    if (!r0.ok()) return r0.get_status();
    std::vector<tensor> out(num_fetches);
    for (const auto* r : {&*r0, &*r1}) {
      REQUIRE(r->rets.size() == num_fetches);
      for (size_t i = 0; i < num_fetches; ++i)
        if (r->rets[i].value.initialized()) out[i] = r->rets[i].value;
    }
    return out;
  }
};

}  // namespace caflow::testing::two_tasks
