#pragma once
// Looking nodes up in a graph_def and running one graph pass on it, for the tests of the passes
// and of pruning: each asserts on the nodes a rewrite leaves.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "graph/ir/graph.hpp"
#include "graph/ir/graph_def.hpp"
#include "graph/ir/passes/pass.hpp"

namespace caflow::testing {

// The node named `name`, or nullptr.
inline const node_def* find_node(const graph_def& g, std::string_view name) {
  for (const node_def& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// How many nodes run `op`.
inline int count_op(const graph_def& g, std::string_view op) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const node_def& n) { return n.op == op; }));
}

// Runs one `Pass` on `g` with `keep` protected, and checks that the result is still a valid
// graph.
template <class Pass>
pass_stats run_pass(graph_def& g, std::set<std::string, std::less<>> keep = {}) {
  pass_context ctx;
  ctx.protected_nodes = std::move(keep);
  Pass pass;
  pass_stats stats;
  const status st = pass.run(g, ctx, stats);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  auto rebuilt = graph::build(g);
  REQUIRE_MESSAGE(rebuilt.ok(), rebuilt.get_status().to_string());
  return stats;
}

}  // namespace caflow::testing
