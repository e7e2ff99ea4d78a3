#pragma once
// Pruning a graph to what one run needs. Feeds become _Arg nodes (so the fed tensor's producer
// is not run), fetches become _Retval nodes, and only nodes that fetches or targets depend on
// (through data or control edges) are kept.
#include <string>
#include <vector>

#include "graph/ir/graph.hpp"
#include "graph/ir/run_signature.hpp"

namespace caflow {

struct pruned_graph {
  graph_def def;
  std::vector<dtype> feed_types;
  std::vector<partial_shape> feed_shapes;  // what the full graph infers for each fed tensor
  std::vector<dtype> fetch_types;
};

// Errors name the feed, fetch or target that does not exist.
status_or<pruned_graph> prune_for_run(const graph& full, const run_signature& sig);

}  // namespace caflow
