#include "graph/ir/dump.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <unordered_map>

#include "graph/ir/node_signature.hpp"

namespace caflow {
namespace {

// A DOT double-quoted string. Backslashes are doubled so that a name like "a\n" is not read as
// one of DOT's label escapes.
std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

// Output dtypes of a node, or none when its op or attrs do not resolve.
std::vector<dtype> output_types(const node_def& n) {
  const op_def* op = op_registry::global().lookup(n.op);
  if (!op) return {};
  node_def filled = n;
  add_default_attrs(*op, filled);
  auto sig = resolve_signature(*op, filled);
  return sig.ok() ? sig->output_types : std::vector<dtype>{};
}

std::string cut(std::string s, size_t max) {
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

// Definition order, each node moved after its inputs; what a cycle blocks comes last.
std::vector<int> stable_topo_order(const graph_def& g) {
  const int n = static_cast<int>(g.nodes.size());
  std::unordered_map<std::string_view, int> index;
  for (int i = 0; i < n; ++i) index.emplace(g.nodes[i].name, i);
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      auto ref = parse_input(in);
      if (!ref.ok()) continue;
      auto it = index.find(ref->node);
      if (it == index.end()) continue;
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> placed(n, 0);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    placed[i] = 1;
    for (int c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  for (int i = 0; i < n; ++i)
    if (!placed[i]) order.push_back(i);
  return order;
}

void put_node(std::string& out, const node_def& n, const dot_options& opts, const char* indent) {
  std::string label = n.name + "\n" + n.op;
  if (opts.show_attrs)
    for (const auto& [name, value] : n.attrs)
      label += "\n" + cut(name + "=" + value.to_string(), 60);
  out += errors::concat(indent, quoted(n.name), " [label=", quoted(label), "];\n");
}

}  // namespace

std::string to_dot(const graph_def& g, const dot_options& opts) {
  std::string out = "digraph " + quoted(opts.graph_name) + " {\n";
  out += "  node [shape=box];\n";
  std::map<std::string, std::vector<const node_def*>> by_device;
  for (const node_def& n : g.nodes) {
    if (opts.cluster_by_device && !n.device.empty())
      by_device[n.device].push_back(&n);
    else
      put_node(out, n, opts, "  ");
  }
  int cluster = 0;
  for (const auto& [device, nodes] : by_device) {
    out += errors::concat("  subgraph ", quoted("cluster_" + std::to_string(cluster++)), " {\n");
    out += "    label=" + quoted(device) + ";\n";
    for (const node_def* n : nodes) put_node(out, *n, opts, "    ");
    out += "  }\n";
  }
  std::unordered_map<std::string_view, const node_def*> by_name;
  for (const node_def& n : g.nodes) by_name.emplace(n.name, &n);
  std::unordered_map<std::string_view, std::vector<dtype>> types;  // resolved once per producer
  for (const node_def& n : g.nodes) {
    for (const std::string& in : n.inputs) {
      auto ref = parse_input(in);
      if (!ref.ok()) continue;
      out += errors::concat("  ", quoted(ref->node), " -> ", quoted(n.name));
      if (ref->is_control()) {
        out += " [style=dashed];\n";
        continue;
      }
      std::string label = ref->port ? std::to_string(ref->port) : "";
      if (opts.edge_dtypes) {
        auto it = types.find(ref->node);
        if (it == types.end()) {
          auto src = by_name.find(ref->node);
          it = types
                   .emplace(ref->node, src == by_name.end() ? std::vector<dtype>{}
                                                            : output_types(*src->second))
                   .first;
        }
        if (ref->port < static_cast<int>(it->second.size()))
          label += (label.empty() ? "" : ": ") + std::string(dtype_name(it->second[ref->port]));
      }
      out += label.empty() ? ";\n" : " [label=" + quoted(label) + "];\n";
    }
  }
  out += "}\n";
  return out;
}

std::string to_text(const graph_def& g) {
  std::string out;
  for (int i : stable_topo_order(g)) {
    const node_def& n = g.nodes[i];
    out += n.name + " = " + n.op;
    if (!n.attrs.empty()) {
      out += '[';
      bool first = true;
      for (const auto& [name, value] : n.attrs) {
        out += errors::concat(first ? "" : ", ", name, "=", value.to_string());
        first = false;
      }
      out += ']';
    }
    out += '(';
    for (size_t k = 0; k < n.inputs.size(); ++k) out += (k ? ", " : "") + n.inputs[k];
    out += ')';
    if (!n.device.empty()) out += " @" + n.device;
    out += '\n';
  }
  return out;
}

std::string placement_table(const graph_def& g) {
  struct row {
    std::string_view name, op, device;
  };
  std::vector<row> rows;
  rows.reserve(g.nodes.size());
  for (const node_def& n : g.nodes) rows.push_back({n.name, n.op, n.device});
  // The empty device sorts first, as "(none)" should.
  std::sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
    return a.device != b.device ? a.device < b.device : a.name < b.name;
  });
  size_t name_w = 4, op_w = 2;  // "node", "op"
  for (const row& r : rows) {
    name_w = std::max(name_w, r.name.size());
    op_w = std::max(op_w, r.op.size());
  }
  std::string out;
  const auto line = [&](std::string_view a, std::string_view b, std::string_view c) {
    out += a;
    out.append(name_w - a.size() + 2, ' ');
    out += b;
    out.append(op_w - b.size() + 2, ' ');
    out += c;
    out += '\n';
  };
  line("node", "op", "device");
  for (const row& r : rows) line(r.name, r.op, r.device.empty() ? "(none)" : r.device);
  return out;
}

}  // namespace caflow
