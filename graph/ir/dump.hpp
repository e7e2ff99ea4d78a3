#pragma once
// Human-readable views of a graph_def, for logs, the console and debugging: Graphviz DOT, one
// line of text per node, and a table of where each node runs. None of them fails: a graph that
// graph::build would reject (unknown op, dangling input, cycle) is still shown as it is.
#include <string>

#include "graph/ir/graph_def.hpp"

namespace caflow {

struct dot_options {
  std::string graph_name = "caflow";
  // Each device's nodes in a box labeled with the device; nodes without a device stay outside.
  bool cluster_by_device = true;
  // Data edges labeled with the tensor's dtype (when the producer's op and attrs resolve), and
  // with the port ("1: float32") when it is not 0.
  bool edge_dtypes = true;
  // Each node's attrs under its name and op, one per line, long values cut at 60 characters.
  bool show_attrs = false;
};

// A `digraph` that `dot -Tsvg` accepts: names, ops, devices and attrs are quoted and escaped.
// Nodes are boxes labeled "name\nOp"; control edges are dashed.
std::string to_dot(const graph_def& g, const dot_options& opts = {});

// One line per node, "name = Op[attr=value, ...](input, ..., ^control) @device" (attrs sorted
// by name; brackets and device left out when empty), in definition order except that every node
// comes after its inputs; nodes on or behind a cycle come last, in definition order.
std::string to_text(const graph_def& g);

// Aligned columns "node  op  device", one row per node sorted by device then name; nodes
// without a device show "(none)" and come first.
std::string placement_table(const graph_def& g);

}  // namespace caflow
