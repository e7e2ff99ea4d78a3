#include "graph/ir/passes/constant_folding.hpp"

#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace caflow {
namespace {

using output_id = std::pair<int, int>;  // (node id, port)

bool is_constant(const graph_node& n) {
  if (n.op->constant_value_attr.empty()) return false;
  auto it = n.def->attrs.find(n.op->constant_value_attr);
  return it != n.def->attrs.end() && it->second.holds<tensor>();
}

// True when an output's shape is fully known and its bytes exceed `cap`.
bool known_larger_than(const graph_node& n, int64_t cap) {
  for (int p = 0; p < static_cast<int>(n.output_shapes.size()); ++p) {
    const partial_shape& s = n.output_shapes[p];
    if (!s.fully_defined()) continue;
    const auto elem = static_cast<int64_t>(dtype_size(n.sig.output_types[p]));
    // Dimension by dimension, so a huge shape cannot overflow the product.
    int64_t elements = 1;
    bool larger = false;
    for (int i = 0; i < s.rank() && !larger; ++i) {
      if (s.dim(i) == 0) {
        elements = 0;
        break;
      }
      if (elements > cap / s.dim(i))
        larger = true;
      else
        elements *= s.dim(i);
    }
    if (larger || (elem > 0 && elements > cap / elem)) return true;
  }
  return false;
}

bool is_foldable(const graph_node& n, const std::vector<char>& foldable, int64_t cap) {
  if (!is_pure(n) || n.num_outputs() == 0) return false;
  if (is_constant(n)) return true;
  // A source that is not a constant takes its value from somewhere other than its inputs
  // (a feed, a queue, a reader), whatever its op declares.
  if (n.num_inputs() == 0) return false;
  for (const in_edge& e : n.inputs)
    if (!foldable[e.src]) return false;
  for (int c : n.control_inputs)
    if (!foldable[c]) return false;
  return !known_larger_than(n, cap);
}

// The outputs of foldable node `n` that must become constants: those read by non-foldable
// nodes, and the only output of a protected node or of one that non-foldable nodes wait on.
std::vector<int> wanted_ports(const graph_node& n, const std::vector<char>& foldable,
                              bool is_protected) {
  std::vector<char> want(n.num_outputs(), 0);
  const bool single = n.num_outputs() == 1;
  if (is_protected && single) want[0] = 1;
  for (const out_edge& e : n.outputs) {
    if (foldable[e.dst]) continue;
    if (!e.is_control())
      want[e.src_port] = 1;
    else if (single)
      want[0] = 1;
  }
  std::vector<int> ports;
  for (int p = 0; p < n.num_outputs(); ++p)
    if (want[p]) ports.push_back(p);
  return ports;
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Runs the foldable nodes that `fetches` depend on through `evaluate`; on success adds one
// value per fetch to `values`. False when the evaluator fails or answers out of contract.
bool evaluate_outputs(const graph& gr, const std::vector<output_id>& fetches,
                      const subgraph_evaluator& evaluate, std::map<output_id, tensor>& values) {
  std::vector<char> needed(gr.num_nodes(), 0);
  std::vector<int> stack;
  for (const auto& [id, port] : fetches)
    if (!needed[id]) needed[id] = 1, stack.push_back(id);
  while (!stack.empty()) {
    const graph_node& n = gr.node(stack.back());
    stack.pop_back();
    for (const in_edge& e : n.inputs)
      if (!needed[e.src]) needed[e.src] = 1, stack.push_back(e.src);
    for (int c : n.control_inputs)
      if (!needed[c]) needed[c] = 1, stack.push_back(c);
  }
  graph_def sub;
  for (int id : gr.topo_order()) {
    if (!needed[id]) continue;
    // Folding runs on the host; device requests and the runtime's '_' annotations (such as
    // colocation with nodes outside the subgraph) do not apply there.
    node_def d = *gr.node(id).def;
    d.device.clear();
    std::erase_if(d.attrs, [](const auto& a) { return a.first.starts_with('_'); });
    sub.nodes.push_back(std::move(d));
  }
  std::vector<std::string> names;
  names.reserve(fetches.size());
  for (const auto& [id, port] : fetches) names.push_back(tensor_name(gr.node(id).name(), port));
  auto result = evaluate(sub, names);
  if (!result.ok() || result->size() != fetches.size()) return false;
  for (size_t i = 0; i < fetches.size(); ++i) {
    const auto& [id, port] = fetches[i];
    if ((*result)[i].type() != gr.node(id).sig.output_types[port]) return false;
  }
  for (size_t i = 0; i < fetches.size(); ++i) values[fetches[i]] = std::move((*result)[i]);
  return true;
}

node_def make_const(std::string name, std::string device, tensor value) {
  // A view into a larger buffer (a slice, one output of Unpack) would keep all of it alive.
  if (value.buf() && value.buf()->size() > value.byte_size()) value = value.deep_copy();
  node_def c;
  c.name = std::move(name);
  c.op = "Const";
  c.device = std::move(device);
  c.attrs["dtype"] = value.type();
  c.attrs["value"] = std::move(value);
  return c;
}

// Keeps the nodes that anything in `roots` reaches through inputs; returns how many went.
int64_t remove_unreachable(std::vector<node_def>& nodes, const std::vector<char>& roots) {
  std::unordered_map<std::string_view, int> index;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) index.emplace(nodes[i].name, i);
  std::vector<char> live(nodes.size(), 0);
  std::vector<int> stack;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (roots[i]) live[i] = 1, stack.push_back(i);
  while (!stack.empty()) {
    const node_def& d = nodes[stack.back()];
    stack.pop_back();
    for (const std::string& in : d.inputs) {
      auto ref = parse_input(in);
      if (!ref.ok()) continue;
      auto it = index.find(ref->node);
      if (it != index.end() && !live[it->second]) live[it->second] = 1, stack.push_back(it->second);
    }
  }
  std::vector<node_def> kept;
  kept.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    if (live[i]) kept.push_back(std::move(nodes[i]));
  const auto removed = static_cast<int64_t>(nodes.size() - kept.size());
  nodes = std::move(kept);
  return removed;
}

// Rewrites `g` (whose nodes are `gr`'s) with a Const for each of `values`, in place for a node
// with one output and under a fresh name otherwise, then drops the foldable nodes nothing
// reads any more. Returns how many nodes of `g` went.
int64_t replace_with_constants(graph_def& g, const graph& gr, const std::vector<char>& foldable,
                               const std::map<output_id, tensor>& values, const pass_context& ctx) {
  const int n = gr.num_nodes();
  std::unordered_set<std::string> taken;
  for (const node_def& d : g.nodes) taken.insert(d.name);
  std::vector<char> in_place(n, 0);
  std::map<output_id, std::string> fresh;  // outputs of multi-output nodes -> their new Const
  for (const auto& [out, value] : values) {
    const graph_node& node = gr.node(out.first);
    if (node.num_outputs() == 1) {
      in_place[out.first] = 1;
      continue;
    }
    const std::string base = node.name() + "/_folded_" + std::to_string(out.second);
    std::string name = base;
    for (int k = 1; taken.contains(name); ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    fresh.emplace(out, std::move(name));
  }

  std::vector<node_def> out;
  std::vector<char> roots;  // what stays whatever reads it
  out.reserve(g.nodes.size() + fresh.size());
  for (int id = 0; id < n; ++id) {
    const graph_node& node = gr.node(id);
    node_def& d = g.nodes[id];
    if (in_place[id]) {
      out.push_back(make_const(std::move(d.name), std::move(d.device), values.at({id, 0})));
      roots.push_back(1);
      continue;
    }
    if (!foldable[id]) {
      for (int slot = 0; slot < node.num_inputs(); ++slot) {
        auto f = fresh.find({node.inputs[slot].src, node.inputs[slot].src_port});
        if (f != fresh.end()) d.inputs[slot] = f->second;
      }
    }
    const bool keep = !foldable[id] || ctx.is_protected(d.name);
    const std::string device = d.device;
    out.push_back(std::move(d));
    roots.push_back(keep);
    for (int port = 0; port < node.num_outputs(); ++port) {
      auto f = fresh.find({id, port});
      if (f == fresh.end()) continue;
      out.push_back(make_const(f->second, device, values.at({id, port})));
      roots.push_back(1);
    }
  }
  const int64_t removed = remove_unreachable(out, roots);
  g.nodes = std::move(out);
  return removed;
}

}  // namespace

status constant_folding_pass::run(graph_def& g, pass_context& ctx, pass_stats& stats) {
  if (!ctx.evaluate) return {};
  // Inferred shapes only let oversized values be skipped before they are computed
  // (pass_context::built says what happens when inference fails).
  CAFLOW_ASSIGN_OR_RETURN(const graph* built, ctx.built(g));
  const graph& gr = *built;
  const int n = gr.num_nodes();
  const int64_t cap = ctx.options.max_constant_bytes;

  std::vector<char> foldable(n, 0);
  for (int id : gr.topo_order()) foldable[id] = is_foldable(gr.node(id), foldable, cap);

  // Connected foldable subgraphs are evaluated together, and left alone together on failure.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (int id = 0; id < n; ++id) {
    if (!foldable[id]) continue;
    for (const out_edge& e : gr.node(id).outputs)
      if (foldable[e.dst]) parent[find_root(parent, id)] = find_root(parent, e.dst);
  }
  std::map<int, std::vector<output_id>> groups;  // root -> outputs to fold
  std::vector<output_id> all;
  for (int id = 0; id < n; ++id) {
    const graph_node& node = gr.node(id);
    if (!foldable[id] || is_constant(node)) continue;
    for (int port : wanted_ports(node, foldable, ctx.is_protected(node.name()))) {
      groups[find_root(parent, id)].push_back({id, port});
      all.push_back({id, port});
    }
  }
  if (all.empty()) return {};

  // One evaluation in the usual case; one per subgraph to find the ones that fail.
  std::map<output_id, tensor> values;
  if (!evaluate_outputs(gr, all, ctx.evaluate, values) && groups.size() > 1)
    for (const auto& [root, fetches] : groups) evaluate_outputs(gr, fetches, ctx.evaluate, values);
  std::erase_if(values, [&](const auto& v) {
    return !v.second.initialized() || static_cast<int64_t>(v.second.byte_size()) > cap;
  });
  if (values.empty()) return {};

  stats.folded = static_cast<int64_t>(values.size());
  stats.removed = replace_with_constants(g, gr, foldable, values, ctx);
  return {};
}

}  // namespace caflow
