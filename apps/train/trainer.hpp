#pragma once
// One client's training loop: initialization (the chief initializes the shared variables, the
// others wait for them), epochs of shuffled batches from this client's shard, the progress
// line, and the chief's evaluation on the test set.
#include <string>

#include "apps/train/plot.hpp"
#include "apps/train/replication.hpp"
#include "graph/client/data/dataset.hpp"

namespace caflow::train_app {

struct client_result {
  int64_t steps = 0;
  double seconds = 0;
  // Rates from this client's first step to its last (the first also plans the graph).
  double samples_per_second = 0;  // this client's training samples (all its towers)
  // Every replica's, from the global step: updates made in that window, times the samples
  // behind each (a sync update averages replicas_to_aggregate batches). 0 with fewer than two
  // steps.
  double global_samples_per_second = 0;
  float last_loss = 0;
  double test_accuracy = -1;  // the chief's evaluation; -1 on other clients
  double test_auc = -1;       // the chief's, for binary classifiers (wide-deep); -1 otherwise
  training_history history;   // the chief's, with --plot
};

// `shards` holds one training shard per tower of the graph. `target` is "local" or a
// master's caflow:// address.
status_or<client_result> run_client(const train_options& opts, const client_plan& plan,
                                    client_graph& graph, const std::string& target,
                                    const std::vector<data::dataset>& shards,
                                    const data::dataset& test, bool print_progress);

}  // namespace caflow::train_app
