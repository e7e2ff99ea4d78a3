#pragma once
// Control edges that cross from one device to a node of another in bulk. A node often waits on
// many nodes of one other device: an optimizer's `update` group on a worker waits on every
// ApplyAdam on the parameter server, a chief's train op on every accumulator's new global
// step. Partitioned as they stand, each such edge is a _Send/_Recv pair of its own: a message,
// a wake-up and a rendezvous entry per edge and step (19 per step for the sync-replicas chief
// of a 4-layer MLP). Grouping the control inputs that a node takes from one other device under
// one NoOp placed on that device leaves one pair: the NoOp completes when the last of them
// does, which is when the consumer could have started anyway, so no order changes.
//
// Consumers that wait on the same set of nodes of one device share the NoOp. A graph with
// control flow is left alone: a NoOp that joined nodes of different frames or branches would
// change when, and whether, the consumer runs.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

// The name session_config::disabled_passes turns it off by.
inline constexpr const char* control_coalesce_pass = "control_coalesce";

struct coalesced_graph {
  graph_def def;                       // g's nodes (same ids), then the added NoOps
  std::vector<std::string> placement;  // by node id, the added NoOps included
  int64_t edges_removed = 0;           // control edges across devices that the NoOps replace
};

// Groups, for every node of `g`, the control inputs it takes from each other device whenever
// there are at least two; `placement` gives each node's device by id. edges_removed == 0: def
// and placement are empty (g and `placement` stand as they are).
coalesced_graph coalesce_remote_control(const graph& g, const std::vector<std::string>& placement);

}  // namespace caflow
