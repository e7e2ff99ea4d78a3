#include "graph/ir/control_coalesce.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "graph/ir/control_flow.hpp"

namespace caflow {

coalesced_graph coalesce_remote_control(const graph& g, const std::vector<std::string>& placement) {
  coalesced_graph out;
  if (has_control_flow(g.def())) return out;
  std::unordered_set<std::string> added;
  const auto in_graph = [&g](const std::string& name) { return g.find(name).has_value(); };
  // (device, the grouped nodes' ids) -> the NoOp's name, for consumers that share a set.
  std::map<std::pair<std::string, std::vector<int>>, std::string> groups;
  for (const graph_node& n : g.nodes()) {
    std::map<std::string, std::vector<int>> by_device;  // other device -> its control inputs
    for (int i : n.control_inputs)
      if (placement[i] != placement[n.id]) by_device[placement[i]].push_back(i);
    for (auto& [device, ids] : by_device) {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      if (ids.size() < 2) continue;
      // The graph is copied at its first edit: a graph with nothing to group costs a scan.
      if (out.edges_removed == 0 && out.def.nodes.empty()) {
        out.def = g.def();
        out.placement = placement;
      }
      auto [group, is_new] = groups.try_emplace({device, ids});
      if (is_new) {
        group->second = unused_node_name("_ctrl_group/" + n.name(), in_graph, added);
        node_def noop{group->second, "NoOp", device, {}, {}};
        for (int i : ids) noop.inputs.push_back("^" + g.node(i).name());
        out.def.nodes.push_back(std::move(noop));
        out.placement.push_back(device);
      }
      std::set<std::string> grouped;
      for (int i : ids) grouped.insert("^" + g.node(i).name());
      std::vector<std::string>& inputs = out.def.nodes[n.id].inputs;
      std::erase_if(inputs, [&](const std::string& in) { return grouped.count(in) > 0; });
      inputs.push_back("^" + group->second);
      out.edges_removed += static_cast<int64_t>(ids.size());
    }
  }
  return out;
}

}  // namespace caflow
