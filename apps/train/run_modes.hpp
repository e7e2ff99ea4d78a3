#pragma once
// The clients one caflow-train process drives against a cluster, per replication mode: one
// client per between-graph replica (each in its own thread), or one client for in-graph and
// model-parallel graphs. Each feeds every tower of its graph a shard of its own.
#include <string>
#include <vector>

#include "apps/train/data.hpp"
#include "apps/train/trainer.hpp"

namespace caflow::train_app {

// Replica w drives targets[w] (its worker's master). The chief's result, or the status of the
// first replica to fail, naming it.
status_or<client_result> run_replicas(const train_options& o, client_plan base,
                                      const std::vector<std::string>& targets,
                                      const train_data& data);

// One client at `target` for every tower of the cluster's workers.
status_or<client_result> run_in_graph(const train_options& o, client_plan plan,
                                      const std::string& target, const train_data& data);

}  // namespace caflow::train_app
