#include "apps/train/run_modes.hpp"

#include <mutex>
#include <thread>

namespace caflow::train_app {

// Every between-graph replica in its own thread, each with its own client and graph. When
// replicas fail, the first to fail names the cause: the others often only waited for it (a
// sync chief runs into its step timeout when too few workers are left to aggregate).
status_or<client_result> run_replicas(const train_options& o, client_plan base,
                                      const std::vector<std::string>& targets,
                                      const train_data& data) {
  const int n = static_cast<int>(targets.size());
  std::vector<status_or<client_result>> results;
  for (int w = 0; w < n; ++w) results.emplace_back(errors::internal("not run"));
  std::mutex mu;
  std::vector<int> failed;  // in the order the replicas failed
  std::vector<std::thread> threads;
  for (int w = 0; w < n; ++w)
    threads.emplace_back([&, w] {
      client_plan plan = base;
      plan.worker_index = w;
      auto graph = build_client_graph(o, plan);
      status_or<client_result> result =
          graph.ok() ? run_client(o, plan, **graph, targets[w],
                                  data.worker_shards(w, n, o.gpus_per_worker), data.test, w == 0)
                     : status_or<client_result>(graph.get_status());
      std::lock_guard<std::mutex> lock(mu);
      if (!result.ok()) failed.push_back(w);
      results[w] = std::move(result);
    });
  for (auto& t : threads) t.join();
  if (failed.empty()) return results[0];
  const int first = failed.front();
  std::string context = "worker " + std::to_string(first);
  if (failed.size() > 1)
    context += " (the first of " + std::to_string(failed.size()) + " workers to fail)";
  return results[first].get_status().with_context(context);
}

status_or<client_result> run_in_graph(const train_options& o, client_plan plan,
                                      const std::string& target, const train_data& data) {
  CAFLOW_ASSIGN_OR_RETURN(auto graph, build_client_graph(o, plan));
  // In-graph: one shard per tower (towers of every worker); model parallel: one tower on the
  // whole training set.
  std::vector<data::dataset> shards;
  const int towers = static_cast<int>(graph->towers.size());
  for (int t = 0; t < towers; ++t) shards.push_back(data.train_shard(t, towers));
  return run_client(o, plan, *graph, target, shards, data.test, true);
}

}  // namespace caflow::train_app
