#pragma once
// Planning at scale, for bench_graph_passes: a 100k-node graph over 64 tasks (a chain of Adds
// per task, fed from task 0 and summed back there), in one process: 64 workers and a master in
// one actor system, asked by a scoped actor as a client's session would. Times the first step
// of the run signature (prune, place, partition, the graph passes per partition, register and
// bind with 64 workers, then the step) against a second step of the same signature (the cached
// plan: the step alone), and the process's memory growth per task over the first step: the
// master's plan and every worker's registered partition (its graph, executor and kernels),
// as the heap holds it after the first step's temporaries are given back.
#include <malloc.h>

#include <caf/all.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "actors/master/master.hpp"
#include "actors/worker/worker.hpp"
#include "bench_util.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/serialization.hpp"
#include "net/errors.hpp"
#include "net/middleman.hpp"

namespace caflow::bench {

struct in_process_config : caf::actor_system_config {
  in_process_config() { configure_network(*this, failure_detection{}); }
};

inline double rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024;
  return 0;
}

inline void plan_at_scale(int tasks = 64, int nodes_per_task = 1562) {
  in_process_config cfg;
  caf::actor_system sys{cfg};
  std::map<std::string, worker_actor> workers;
  for (int t = 0; t < tasks; ++t)
    workers["/job:worker/replica:0/task:" + std::to_string(t)] =
        spawn_worker(sys, {.job = "worker", .task = t,
                           .cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
  master_actor master = spawn_master(sys, {.job = "worker", .task = 0, .workers = workers,
                                           .step_timeout = std::chrono::minutes(5),
                                           .rpc_timeout = std::chrono::minutes(2)});
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  std::vector<output> lasts;
  for (int t = 0; t < tasks; ++t) {
    auto at = root.with_device("/job:worker/task:" + std::to_string(t));
    auto c = ops::constant(at, 1.0f);
    output a = x;
    for (int i = 0; i < nodes_per_task - 1; ++i) a = ops::add(at, a, c);
    lasts.push_back(a);
  }
  auto total = ops::add_n(root.with_op_name("total"), lasts);
  const graph_def def = root.to_graph_def();
  const double expect = tasks * (1.0 + (nodes_per_task - 1));
  caf::scoped_actor self{sys};
  std::string session;
  self->request(master, std::chrono::minutes(2), cf_create_atom::value, serialize_graph(def),
                session_config{})
      .receive([&](const std::string& h) { session = h; },
               [&](caf::error& e) { std::fprintf(stderr, "create: %s\n", sys.render(e).c_str()); });
  check(!session.empty(), "creating the session");
  auto step = [&] {
    run_step_request req{session, {"x"}, {wire_tensor{tensor::scalar(1.0f)}}, {total.name()}, {}, 0, {}};
    bool ok = false;
    self->request(master, std::chrono::minutes(5), cf_step_atom::value, std::move(req))
        .receive([&](const run_step_reply& r) {
                   ok = r.fetches.size() == 1 &&
                        r.fetches[0].value.scalar_value<float>() == static_cast<float>(expect);
                 },
                 [&](caf::error& e) { std::fprintf(stderr, "step: %s\n", sys.render(e).c_str()); });
    check(ok, "a step of the 64-task graph");
  };
  const double rss_before = rss_mb();
  const auto t0 = std::chrono::steady_clock::now();
  step();
  const auto t1 = std::chrono::steady_clock::now();
  step();
  const auto t2 = std::chrono::steady_clock::now();
  const double first_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double cached_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  // What the run keeps: the heap's free pages that planning's temporaries left behind are given
  // back first (glibc keeps them for the next allocation; they are not the run's memory).
  const double grown_mb = rss_mb() - rss_before;
  malloc_trim(0);
  const double kept_mb = rss_mb() - rss_before;
  std::printf("# %zu nodes over %d tasks: first step %.0f ms (planning + registering + the step), "
              "cached step %.1f ms, memory +%.1f MB (+%.1f MB before the heap's free pages "
              "went back)\n",
              def.nodes.size(), tasks, first_ms, cached_ms, kept_mb, grown_mb);
  result("plan_100k_nodes_64_tasks_ms", first_ms - cached_ms, "ms");
  result("plan_100k_nodes_64_tasks_mb_per_task", kept_mb / tasks, "MB");
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  for (auto& [task, w] : workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
}

}  // namespace caflow::bench
