#pragma once
// Helpers for tests of the passes that reshape a placed graph before partitioning
// (control_bypass, control_coalesce, const_copies): graphs of NoOps on named devices, the
// placement a graph's own device fields give, and how many _Send nodes its partitions hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/graph.hpp"
#include "graph/ir/partition.hpp"

namespace caflow::testing {

inline const std::string ps_cpu = "/job:ps/replica:0/task:0/device:CPU:0";
inline const std::string worker0_cpu = "/job:worker/replica:0/task:0/device:CPU:0";
inline const std::string worker1_cpu = "/job:worker/replica:0/task:1/device:CPU:0";

inline node_def noop(std::string name, std::string device, std::vector<std::string> inputs = {}) {
  return node_def{std::move(name), "NoOp", std::move(device), std::move(inputs), {}};
}

inline graph build_graph(graph_def def) {
  auto g = graph::build(std::move(def));
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return std::move(g).value();
}

// Each node's device as its node_def names it, by node id.
inline std::vector<std::string> placement_of(const graph& g) {
  std::vector<std::string> out;
  for (const graph_node& n : g.nodes()) out.push_back(n.def->device);
  return out;
}

inline const node_def& node_named(const graph_def& def, std::string_view name) {
  for (const node_def& n : def.nodes)
    if (n.name == name) return n;
  FAIL("no node ", name);
  return def.nodes.front();
}

// How many _Send nodes the partitions of `g` placed by `placement` hold (every device of the
// three above gets an incarnation).
inline size_t send_nodes(const graph& g, const std::vector<std::string>& placement) {
  const std::map<std::string, uint64_t> incarnations{
      {ps_cpu, 1}, {worker0_cpu, 2}, {worker1_cpu, 3}};
  auto parts = partition(g, placement, {.incarnations = incarnations});
  REQUIRE_MESSAGE(parts.ok(), parts.get_status().to_string());
  size_t n = 0;
  for (const auto& [device, def] : parts->partitions)
    n += static_cast<size_t>(std::count_if(def.nodes.begin(), def.nodes.end(),
                                           [](const node_def& d) { return d.op == "_Send"; }));
  return n;
}

}  // namespace caflow::testing
