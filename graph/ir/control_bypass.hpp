#pragma once
// Control edges that leave a device only to come back. A NoOp groups control dependencies
// (tf.group, an optimizer's `update` op) and is placed where its scope says, often a worker,
// while what it waits for and what waits for it run on a parameter server. Partitioned as it
// stands, such a chain costs a round trip per step: every input signals the worker, which
// signals the ps back. A consumer on another device than the NoOp, all of whose control
// inputs are on the consumer's device, can wait on those inputs directly: it starts exactly
// when the NoOp could have, and the round trip is gone. (TensorFlow's grappler bypasses NoOps
// for the same reason in its dependency optimizer.)
//
// The NoOp itself stays, with its inputs: a run may target it, and it still orders whatever
// else consumes it; only the consumers across the device boundary are rewired. NoOps have no
// effect of their own, so nothing the graph computes changes.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

// Rewrites the control inputs of `g`'s nodes in a copy of its graph_def, `placement` giving
// each node's device by id. Returns the copy and how many control inputs were rewired (0: the
// copy equals g.def()).
// The name session_config::disabled_passes turns it off by.
inline constexpr const char* control_bypass_pass = "control_bypass";

struct bypassed_graph {
  graph_def def;  // empty when rewired == 0
  int64_t rewired = 0;
};
bypassed_graph bypass_remote_noops(const graph& g, const std::vector<std::string>& placement);

}  // namespace caflow
