#pragma once
// The graph one client builds, for each replication mode:
//   local     one tower, no devices
//   in-graph  variables on the ps tasks, tower i on /job:worker/task:i, gradients averaged
//             on each variable's device, one update
//   async     this worker's tower and its own updates of the shared variables
//   sync      the same through train::sync_replicas_optimizer
//   model-parallel  one client; the model's layers spread over the workers, variables on ps
#include <memory>

#include "apps/train/model.hpp"
#include "graph/client/train/optimizer.hpp"
#include "graph/client/train/saver.hpp"
#include "graph/client/train/sync_replicas_optimizer.hpp"

namespace caflow::train_app {

struct client_plan {
  replication mode = replication::local;
  int ps_tasks = 0;
  int workers = 1;
  int worker_index = 0;  // between-graph: the worker this client drives
  bool is_chief() const { return worker_index == 0; }
};

struct client_graph {
  scope root = scope::new_root();
  std::vector<tower> towers;  // one, or one per worker (in-graph)
  operation train_op;
  train::variable global_step;
  train::variable_set shared_vars;       // the chief initializes them
  std::vector<operation> local_init;     // every client runs them after the chief's init
  operation shared_init;
  output shared_ready;                   // bool scalar: every shared variable is initialized
  std::unique_ptr<train::optimizer> optimizer;  // owns the slots the graph refers to
  std::unique_ptr<train::sync_replicas_optimizer> sync;  // sync mode only
  std::unique_ptr<train::saver> saver;  // the chief's, built on its first run with checkpoints
  // --debug-stall-ps-at-step: fed true once to stall a kernel on the first ps task.
  output debug_stall_when;
  bool debug_stall_fed = false;
};

// Tasks whose loss a client of `plan` cannot train through although none of its own nodes run
// there: in sync mode without backup workers the chief needs every worker's gradients, and
// every other worker needs the chief's tokens. Empty in the other modes.
std::vector<std::string> required_tasks(const train_options& opts, const client_plan& plan);
// TF's usual device filters for a between-graph client: the ps tasks and its own worker, plus
// the workers it must wait for (required_tasks). None for one client driving every worker.
std::vector<std::string> device_filters_for(const train_options& opts, const client_plan& plan);

status_or<std::unique_ptr<client_graph>> build_client_graph(const train_options& opts,
                                                            const client_plan& plan);

}  // namespace caflow::train_app
