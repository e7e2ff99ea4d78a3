#include "graph/ir/passes/cse.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "graph/platform/hash_mix.hpp"

namespace caflow {
namespace {

size_t hash_tensor(const tensor& t) {
  size_t h = static_cast<size_t>(t.type());
  for (int i = 0; i < t.rank(); ++i) h = hash_mix(h, static_cast<size_t>(t.dim(i)));
  if (t.initialized() && t.byte_size() > 0)
    h = hash_mix(h, std::hash<std::string_view>{}(
                        std::string_view(static_cast<const char*>(t.raw_data()), t.byte_size())));
  return h;
}

// Equal attrs hash equally. Tensors are hashed by their bytes because to_string shows only
// the first few elements, and Const nodes are the most common duplicates.
size_t hash_attr(const attr_value& v) {
  if (v.holds<tensor>()) return hash_tensor(v.get<tensor>());
  if (v.holds<std::vector<tensor>>()) {
    size_t h = 0x7e;
    for (const tensor& t : v.get<std::vector<tensor>>()) h = hash_mix(h, hash_tensor(t));
    return h;
  }
  return std::hash<std::string>{}(v.to_string());
}

// A node's inputs in value-number terms: each producer replaced by its representative,
// commutative data inputs and all control inputs in a canonical order.
struct value_inputs {
  std::vector<std::pair<int, int>> data;  // (representative, port)
  std::vector<int> control;

  bool operator==(const value_inputs&) const = default;
};

value_inputs canonical_inputs(const graph_node& n, const std::vector<int>& rep) {
  value_inputs v;
  v.data.reserve(n.inputs.size());
  for (const in_edge& e : n.inputs) v.data.emplace_back(rep[e.src], e.src_port);
  if (n.op->is_commutative) std::sort(v.data.begin(), v.data.end());
  for (int c : n.control_inputs) v.control.push_back(rep[c]);
  std::sort(v.control.begin(), v.control.end());
  v.control.erase(std::unique(v.control.begin(), v.control.end()), v.control.end());
  return v;
}

size_t value_hash(const node_def& d, const value_inputs& in) {
  size_t h = std::hash<std::string>{}(d.op);
  h = hash_mix(h, std::hash<std::string>{}(d.device));
  for (const auto& [name, v] : d.attrs)
    h = hash_mix(hash_mix(h, std::hash<std::string>{}(name)), hash_attr(v));
  for (const auto& [src, port] : in.data)
    h = hash_mix(hash_mix(h, static_cast<size_t>(src)), static_cast<size_t>(port));
  h = hash_mix(h, in.data.size());  // keeps data and control inputs apart
  for (int c : in.control) h = hash_mix(h, static_cast<size_t>(c));
  return h;
}

// The inputs of `d` read from `target` of each producer; duplicate control inputs dropped.
std::vector<std::string> rewired_inputs(const graph& gr, const graph_node& n,
                                        const std::vector<int>& target, const node_def& d) {
  std::vector<std::string> inputs;
  inputs.reserve(d.inputs.size());
  for (int slot = 0; slot < n.num_inputs(); ++slot) {
    const in_edge& e = n.inputs[slot];
    inputs.push_back(target[e.src] == e.src
                         ? d.inputs[slot]
                         : tensor_name(gr.node(target[e.src]).name(), e.src_port));
  }
  std::vector<int> waited;
  for (size_t i = 0; i < n.control_inputs.size(); ++i) {
    const int c = target[n.control_inputs[i]];
    if (std::find(waited.begin(), waited.end(), c) != waited.end()) continue;
    waited.push_back(c);
    inputs.push_back(c == n.control_inputs[i] ? d.inputs[n.num_inputs() + i]
                                              : "^" + gr.node(c).name());
  }
  return inputs;
}

}  // namespace

status cse_pass::run(graph_def& g, pass_context& ctx, pass_stats& stats) {
  CAFLOW_ASSIGN_OR_RETURN(const graph* built, ctx.built(g));
  const graph& gr = *built;
  const int n = gr.num_nodes();
  const std::vector<int> order = definition_topo_order(gr);
  // rep: the value number, i.e. the first node visited of each class of equal nodes.
  std::vector<int> rep(n);
  std::iota(rep.begin(), rep.end(), 0);
  std::vector<value_inputs> inputs(n);
  std::unordered_multimap<size_t, int> numbered;  // value hash -> class representative
  for (int id : order) {
    const graph_node& node = gr.node(id);
    if (!is_pure(node)) continue;
    // Compared with defaults filled in, so a default spelled out equals one left implicit.
    const node_def& d = *node.def;
    inputs[id] = canonical_inputs(node, rep);
    const size_t h = value_hash(d, inputs[id]);
    int match = -1;
    for (auto [it, end] = numbered.equal_range(h); it != end; ++it) {
      const node_def& o = *gr.node(it->second).def;
      if (o.op == d.op && o.device == d.device && inputs[it->second] == inputs[id] &&
          o.attrs == d.attrs) {
        match = it->second;
        break;
      }
    }
    if (match < 0)
      numbered.emplace(h, id);
    else
      rep[id] = match;
  }

  // Each class keeps its representative, or its first protected member when the representative
  // is not protected (a fetched duplicate would otherwise be computed twice). Protected members
  // always stay. Every edge then still runs from an earlier class to a later one, so no cycle.
  std::vector<char> is_protected(n);
  for (int id = 0; id < n; ++id) is_protected[id] = ctx.is_protected(gr.node(id).name());
  std::vector<int> survivor(n);
  std::iota(survivor.begin(), survivor.end(), 0);
  for (int id : order) {
    int& s = survivor[rep[id]];
    if (!is_protected[s] && is_protected[id]) s = id;
  }
  std::vector<int> target(n);  // whom consumers of each node read after the pass
  int64_t merged = 0;
  for (int id = 0; id < n; ++id) {
    const int s = survivor[rep[id]];
    target[id] = s == id || is_protected[id] ? id : s;
    merged += target[id] != id;
  }
  stats.removed = merged;
  if (merged == 0) return {};

  std::vector<node_def> out;
  out.reserve(static_cast<size_t>(n - merged));
  for (int id = 0; id < n; ++id) {
    if (target[id] != id) continue;
    node_def d = std::move(g.nodes[id]);
    d.inputs = rewired_inputs(gr, gr.node(id), target, d);
    out.push_back(std::move(d));
  }
  g.nodes = std::move(out);
  return {};
}

}  // namespace caflow
