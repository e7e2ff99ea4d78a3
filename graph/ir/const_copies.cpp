#include "graph/ir/const_copies.hpp"

#include <map>
#include <unordered_set>

#include "graph/core/device_name.hpp"
#include "graph/ir/control_flow.hpp"

namespace caflow {
namespace {

std::string device_type(const std::string& device) {
  auto spec = parse_device_spec(device);
  return spec.ok() && spec->type ? *spec->type : std::string();
}

// A value every task can have without a cut edge: a small constant unordered by control
// inputs, or a feed (an _Arg: the master puts the fed value in the request of every partition
// with an _Arg of its index, whatever its size).
bool copyable(const graph_node& n, int64_t max_bytes) {
  if (!n.control_inputs.empty()) return false;
  if (n.def->op == "_Arg") return true;
  if (n.def->op != "Const") return false;
  auto value = n.def->attrs.find("value");
  if (value == n.def->attrs.end() || !value->second.holds<tensor>()) return false;
  const tensor& t = value->second.get<tensor>();
  return t.initialized() && static_cast<int64_t>(t.byte_size()) <= max_bytes;
}

}  // namespace

namespace {

// What the copies change: nodes appended after g's, and readers' inputs that now name a copy.
struct copy_edits {
  std::vector<node_def> added;
  std::vector<std::string> added_placement;
  struct rewire {
    int node;
    int slot;
    std::string input;
  };
  std::vector<rewire> rewires;
};

copy_edits find_copies(const graph& g, const std::vector<std::string>& placement,
                       int64_t max_bytes) {
  copy_edits out;
  if (has_control_flow(g.def())) return out;
  std::unordered_set<std::string> added;
  const auto in_graph = [&g](const std::string& name) { return g.find(name).has_value(); };
  for (const graph_node& c : g.nodes()) {
    if (!copyable(c, max_bytes)) continue;
    const std::string& home = placement[c.id];
    const std::string type = device_type(home);
    std::map<std::string, std::string> copy_on;  // device -> the copy's name
    for (const out_edge& e : c.outputs) {
      if (e.is_control()) continue;
      const std::string& device = placement[e.dst];
      if (device == home || type.empty() || device_type(device) != type) continue;
      auto [copy, is_new] = copy_on.try_emplace(device);
      if (is_new) {
        copy->second = unused_node_name(c.name() + "/_copy", in_graph, added);
        node_def d = *c.def;
        d.name = copy->second;
        d.device = device;
        out.added.push_back(std::move(d));
        out.added_placement.push_back(device);
      }
      // The edge's own input slot (a reader may take the constant in several); a built graph
      // lists data inputs first, so the slot is the entry's index.
      out.rewires.push_back({e.dst, e.dst_port, tensor_name(copy->second, e.src_port)});
    }
  }
  return out;
}

const_copied_graph apply(copy_edits edits, graph_def def, std::vector<std::string> placement) {
  const_copied_graph out{std::move(def), std::move(placement),
                         static_cast<int64_t>(edits.added.size())};
  for (copy_edits::rewire& r : edits.rewires)
    out.def.nodes[r.node].inputs[r.slot] = std::move(r.input);
  for (node_def& d : edits.added) out.def.nodes.push_back(std::move(d));
  out.placement.insert(out.placement.end(), edits.added_placement.begin(),
                       edits.added_placement.end());
  return out;
}

}  // namespace

const_copied_graph copy_constants_to_readers(const graph& g,
                                             const std::vector<std::string>& placement,
                                             int64_t max_bytes) {
  copy_edits edits = find_copies(g, placement, max_bytes);
  if (edits.added.empty()) return {};
  return apply(std::move(edits), g.def(), placement);
}

const_copied_graph copy_constants_to_readers(graph&& g,
                                             const std::vector<std::string>& placement,
                                             int64_t max_bytes) {
  copy_edits edits = find_copies(g, placement, max_bytes);
  if (edits.added.empty()) return {};
  return apply(std::move(edits), std::move(g).release_def(), placement);
}

}  // namespace caflow
