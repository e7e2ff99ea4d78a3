#pragma once
// The serializable description of a graph, as in TensorFlow's GraphDef/NodeDef. Inputs are
// "node" (output 0), "node:k", or "^node" for a control dependency; control inputs come last.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "graph/ir/attr_value.hpp"

namespace caflow {

struct node_def {
  std::string name;
  std::string op;
  std::string device;  // requested device spec, may be partial or empty
  std::vector<std::string> inputs;
  std::map<std::string, attr_value> attrs;

  bool operator==(const node_def&) const = default;
};

struct graph_def {
  static constexpr int64_t current_version = 1;
  int64_t version = current_version;
  std::vector<node_def> nodes;

  bool operator==(const graph_def&) const = default;
};

// One parsed entry of node_def::inputs.
struct input_ref {
  std::string_view node;
  int port = 0;        // -1 for a control input
  bool is_control() const { return port < 0; }
};

// Parses "node", "node:3" or "^node"; errors name the offending string.
status_or<input_ref> parse_input(std::string_view s);
// "node:port", or "node" for port 0 (the canonical spelling).
std::string tensor_name(std::string_view node, int port);

// `base`, or `base` with the first suffix "_1", "_2", ... that makes it a name `taken` does not
// hold; added to `taken`. For passes that add nodes to a graph.
std::string unused_node_name(const std::string& base, std::unordered_set<std::string>& taken);
// The same for names known to a built graph (`in_graph`) plus those `added` since, which takes
// the name returned: no set of the whole graph's names is made.
std::string unused_node_name(const std::string& base,
                             const std::function<bool(const std::string&)>& in_graph,
                             std::unordered_set<std::string>& added);

}  // namespace caflow
