#include "graph/ir/control_bypass.hpp"

#include <algorithm>
#include <set>

namespace caflow {
namespace {

// Whether every control input of `noop` runs on `device` (and it has one at least: a NoOp
// without inputs orders nothing, and one fed by data cannot be bypassed by control edges).
bool inputs_all_on(const graph_node& noop, const std::string& device,
                   const std::vector<std::string>& placement) {
  if (noop.control_inputs.empty() || !noop.inputs.empty()) return false;
  return std::all_of(noop.control_inputs.begin(), noop.control_inputs.end(),
                     [&](int i) { return placement[i] == device; });
}

}  // namespace

bypassed_graph bypass_remote_noops(const graph& g, const std::vector<std::string>& placement) {
  bypassed_graph out;
  for (const graph_node& n : g.nodes()) {
    if (n.def->op != "NoOp") continue;
    for (const out_edge& e : n.outputs) {
      if (!e.is_control()) continue;
      const std::string& device = placement[e.dst];
      if (device == placement[n.id] || !inputs_all_on(n, device, placement)) continue;
      // The graph is copied at its first edit: a graph with nothing to rewire costs a scan.
      if (out.rewired == 0) out.def = g.def();
      node_def& consumer = out.def.nodes[e.dst];
      std::set<std::string> has;  // what the consumer already waits on, by node name
      for (const std::string& in : consumer.inputs)
        if (auto ref = parse_input(in); ref.ok()) has.emplace(ref->node);
      std::erase(consumer.inputs, "^" + n.name());
      for (int i : n.control_inputs)
        if (has.insert(g.node(i).name()).second) consumer.inputs.push_back("^" + g.node(i).name());
      ++out.rewired;
    }
  }
  return out;
}

}  // namespace caflow
