#include "graph/ir/graph.hpp"

#include <algorithm>

#include "graph/ir/control_flow.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

status_or<graph> graph::build(graph_def def, const graph_options& opts) {
  graph g;
  g.def_ = std::move(def);
  g.nodes_.resize(g.def_.nodes.size());
  g.by_name_.reserve(g.def_.nodes.size());
  for (size_t i = 0; i < g.def_.nodes.size(); ++i) {
    node_def& nd = g.def_.nodes[i];
    if (nd.name.empty()) return errors::invalid_argument("node #", i, " (", nd.op, ") has no name");
    if (!g.by_name_.emplace(nd.name, static_cast<int>(i)).second)
      return errors::invalid_argument("duplicate node name '", nd.name, "'");
    const op_def* op = op_registry::global().lookup(nd.op);
    if (!op)
      return errors::not_found(describe_node(nd), ": op '", nd.op, "' is not registered");
    add_default_attrs(*op, nd);
    CAFLOW_ASSIGN_OR_RETURN(node_signature sig, resolve_signature(*op, nd));
    graph_node& n = g.nodes_[i];
    n.id = static_cast<int>(i);
    n.def = &nd;
    n.op = op;
    n.sig = std::move(sig);
  }
  CAFLOW_RETURN_IF_ERROR(g.link());
  CAFLOW_RETURN_IF_ERROR(g.sort());
  if (has_control_flow(g.def_)) CAFLOW_RETURN_IF_ERROR(analyze_control_flow(g).get_status());
  if (opts.infer_shapes) CAFLOW_RETURN_IF_ERROR(g.infer_shapes());
  return g;
}

graph_def graph::release_def() && {
  // The index and the nodes point into def_: they go first.
  by_name_.clear();
  nodes_.clear();
  topo_.clear();
  return std::move(def_);
}

std::optional<int> graph::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

status graph::link() {
  for (graph_node& n : nodes_) {
    const node_def& nd = *n.def;
    bool seen_control = false;
    n.inputs.reserve(nd.inputs.size());
    for (const std::string& in : nd.inputs) {
      auto ref = parse_input(in);
      if (!ref.ok()) return ref.get_status().with_context(describe_node(nd));
      auto src = find(ref->node);
      if (!src)
        return errors::invalid_argument(describe_node(nd), ": input '", in,
                                        "' names no node in the graph");
      if (ref->is_control()) {
        seen_control = true;
        n.control_inputs.push_back(*src);
        nodes_[*src].outputs.push_back({n.id, -1, -1});
        continue;
      }
      if (seen_control)
        return errors::invalid_argument(describe_node(nd), ": data input '", in,
                                        "' follows a control input");
      const int slot = n.num_inputs();
      const graph_node& s = nodes_[*src];
      if (ref->port >= s.num_outputs())
        return errors::invalid_argument(describe_node(nd), ": input '", in, "' asks for output ",
                                        ref->port, " but ", describe_node(*s.def), " has ",
                                        s.num_outputs(), " outputs");
      if (slot < static_cast<int>(n.sig.input_types.size())) {
        const dtype want = n.sig.input_types[slot];
        const dtype have = s.sig.output_types[ref->port];
        if (want != have)
          return errors::invalid_argument(describe_node(nd), ": input ", slot, " ('", in,
                                          "') is ", dtype_name(have), ", expected ",
                                          dtype_name(want));
        if (n.sig.input_is_ref[slot] && !s.sig.output_is_ref[ref->port])
          return errors::invalid_argument(describe_node(nd), ": input ", slot, " ('", in,
                                          "') must be a reference to a variable");
      }
      n.inputs.push_back({*src, ref->port});
      nodes_[*src].outputs.push_back({n.id, slot, ref->port});
    }
    if (n.num_inputs() != static_cast<int>(n.sig.input_types.size()))
      return errors::invalid_argument(describe_node(nd), ": expects ", n.sig.input_types.size(),
                                      " inputs, got ", n.num_inputs());
  }
  return {};
}

status graph::sort() {
  std::vector<int> pending(nodes_.size());
  std::vector<int> ready;
  // A loop's back edges (NextIteration -> Merge) are left out: the Merge comes first.
  for (const graph_node& n : nodes_) {
    pending[n.id] = static_cast<int>(n.control_inputs.size());
    for (const in_edge& e : n.inputs)
      if (!is_back_edge(nodes_[e.src].def->op, n.def->op)) ++pending[n.id];
    if (pending[n.id] == 0) ready.push_back(n.id);
  }
  topo_.clear();
  topo_.reserve(nodes_.size());
  while (!ready.empty()) {
    const int id = ready.back();
    ready.pop_back();
    topo_.push_back(id);
    const graph_node& n = nodes_[id];
    for (const out_edge& e : n.outputs) {
      if (!e.is_control() && is_back_edge(n.def->op, nodes_[e.dst].def->op)) continue;
      if (--pending[e.dst] == 0) ready.push_back(e.dst);
    }
  }
  if (topo_.size() != nodes_.size()) {
    std::string names;
    int shown = 0;
    for (const graph_node& n : nodes_) {
      if (pending[n.id] == 0 || shown == 5) continue;
      names += (shown++ ? ", '" : "'") + n.name() + "'";
    }
    return errors::invalid_argument("graph has a cycle through ", names);
  }
  return {};
}

status graph::infer_shapes() {
  // A Merge reads its back edge before the NextIteration behind it is inferred: unknown.
  for (graph_node& n : nodes_) n.output_shapes.assign(n.num_outputs(), partial_shape::unknown());
  for (int id : topo_) {
    graph_node& n = nodes_[id];
    if (!n.op->infer_shape) continue;
    std::vector<partial_shape> in_shapes;
    std::vector<const tensor*> in_values;
    for (const in_edge& e : n.inputs) {
      const graph_node& s = nodes_[e.src];
      in_shapes.push_back(s.output_shapes[e.src_port]);
      const tensor* value = nullptr;
      if (e.src_port == 0 && !s.op->constant_value_attr.empty()) {
        auto it = s.def->attrs.find(s.op->constant_value_attr);
        if (it != s.def->attrs.end() && it->second.holds<tensor>()) value = &it->second.get<tensor>();
      }
      in_values.push_back(value);
    }
    // A loop's Merge sees its variable's shape as it enters: the back edge stands for it.
    std::vector<int> back_edges;
    for (int i = 0; i < n.num_inputs(); ++i)
      if (is_back_edge(nodes_[n.inputs[i].src].def->op, n.def->op)) back_edges.push_back(i);
    if (!back_edges.empty() && back_edges.size() < in_shapes.size()) {
      size_t entering = 0;
      while (std::find(back_edges.begin(), back_edges.end(), entering) != back_edges.end())
        ++entering;
      for (int i : back_edges) in_shapes[i] = in_shapes[entering];
    }
    shape_context ctx(*n.def, n.sig, std::move(in_shapes), std::move(in_values));
    CAFLOW_RETURN_IF_ERROR(n.op->infer_shape(ctx));
    n.output_shapes = ctx.outputs();
  }
  return check_loop_shapes();
}

status graph::check_loop_shapes() const {
  for (const graph_node& n : nodes_) {
    for (const in_edge& e : n.inputs) {
      const graph_node& next = nodes_[e.src];
      if (!is_back_edge(next.def->op, n.def->op)) continue;
      const partial_shape& body = next.output_shapes[e.src_port];
      if (body.compatible_with(n.output_shapes[0])) continue;
      return errors::invalid_argument(
          describe_node(*n.def), ": the loop variable has shape ", n.output_shapes[0].to_string(),
          " when it enters the loop, but the loop body gives it shape ", body.to_string(),
          " through '", next.name(), "'; declare a shape invariant that allows both");
    }
  }
  return {};
}

}  // namespace caflow
