#pragma once
// A validated graph: every node resolved against its op, every edge checked (node exists, port
// in range, dtypes and refs agree), acyclic but for while loops' back edges (which topological
// orders leave out, see graph/ir/control_flow.hpp), with inferred output shapes. Anything wrong
// is rejected here, before anything runs, with an error naming the node.
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/ir/graph_def.hpp"
#include "graph/ir/node_signature.hpp"

namespace caflow {

struct in_edge {
  int src = -1;
  int src_port = 0;
};

struct out_edge {
  int dst = -1;
  int dst_port = 0;  // -1 for a control edge
  int src_port = 0;  // -1 for a control edge
  bool is_control() const { return dst_port < 0; }
};

struct graph_node {
  int id = -1;
  const node_def* def = nullptr;
  const op_def* op = nullptr;
  node_signature sig;
  std::vector<in_edge> inputs;  // one per data input slot
  std::vector<int> control_inputs;
  std::vector<out_edge> outputs;  // data and control consumers
  std::vector<partial_shape> output_shapes;

  const std::string& name() const { return def->name; }
  int num_inputs() const { return static_cast<int>(inputs.size()); }
  int num_outputs() const { return static_cast<int>(sig.output_types.size()); }
};

struct graph_options {
  bool infer_shapes = true;
};

class graph {
 public:
  // Adds default attrs to every node, then validates. Errors name the node at fault.
  static status_or<graph> build(graph_def def, const graph_options& opts = {});

  graph(graph&&) noexcept = default;
  graph& operator=(graph&&) noexcept = default;

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const graph_node& node(int id) const { return nodes_[id]; }
  const std::vector<graph_node>& nodes() const { return nodes_; }
  std::optional<int> find(std::string_view name) const;
  // Every node after all of its data and control inputs.
  const std::vector<int>& topo_order() const { return topo_; }
  // The definition with defaults filled in.
  const graph_def& def() const { return def_; }
  // The definition, moved out: the graph is left empty (no nodes), for a caller that rebuilds
  // from an edited copy and would otherwise copy it.
  graph_def release_def() &&;

 private:
  graph() = default;
  status link();
  status sort();
  status infer_shapes();
  // A loop variable whose shape the body changes beyond what its Merge allows is an error.
  status check_loop_shapes() const;

  graph_def def_;
  std::vector<graph_node> nodes_;
  std::unordered_map<std::string_view, int> by_name_;
  std::vector<int> topo_;
};

}  // namespace caflow
