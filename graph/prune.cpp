#include "graph/prune.hpp"

#include <map>

namespace caflow {
namespace {

struct tensor_ref {
  int node;
  int port;
};

status_or<tensor_ref> resolve_tensor(const graph& g, const std::string& name, const char* role) {
  auto ref = parse_input(name);
  if (!ref.ok() || ref->is_control())
    return errors::invalid_argument(role, " '", name, "' is not a tensor name (node or node:port)");
  auto id = g.find(ref->node);
  if (!id) return errors::not_found(role, " '", name, "': no node named '", ref->node, "' in the graph");
  const graph_node& n = g.node(*id);
  if (ref->port >= n.num_outputs())
    return errors::invalid_argument(role, " '", name, "': ", describe_node(*n.def), " has ",
                                    n.num_outputs(), " outputs");
  return tensor_ref{*id, ref->port};
}

}  // namespace

status_or<pruned_graph> prune_for_run(const graph& full, const run_signature& sig) {
  pruned_graph out;
  std::map<std::pair<int, int>, std::string> fed;  // (node, port) -> _Arg node name
  for (size_t i = 0; i < sig.feeds.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor_ref t, resolve_tensor(full, sig.feeds[i], "feed"));
    const graph_node& n = full.node(t.node);
    if (n.sig.output_is_ref[t.port])
      return errors::invalid_argument("feed '", sig.feeds[i], "': cannot feed a variable reference");
    std::string arg = "_arg_" + std::to_string(i);
    if (!fed.emplace(std::pair{t.node, t.port}, arg).second)
      return errors::invalid_argument("feed '", sig.feeds[i], "' is fed twice");
    const dtype type = n.sig.output_types[t.port];
    out.feed_types.push_back(type);
    out.feed_shapes.push_back(n.output_shapes.empty() ? partial_shape::unknown()
                                                      : n.output_shapes[t.port]);
    node_def a;
    a.name = std::move(arg);
    a.op = "_Arg";
    a.device = n.def->device;
    a.attrs["T"] = type;
    a.attrs["index"] = static_cast<int64_t>(i);
    out.def.nodes.push_back(std::move(a));
  }

  std::vector<bool> needed(full.num_nodes(), false);
  std::vector<int> stack;
  const auto need = [&](int id) {
    if (!needed[id]) {
      needed[id] = true;
      stack.push_back(id);
    }
  };
  std::vector<node_def> retvals;
  for (size_t i = 0; i < sig.fetches.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor_ref t, resolve_tensor(full, sig.fetches[i], "fetch"));
    const graph_node& n = full.node(t.node);
    const dtype type = n.sig.output_types[t.port];
    if (type == dtype::resource)
      return errors::invalid_argument("fetch '", sig.fetches[i],
                                      "': a resource handle cannot be fetched");
    out.fetch_types.push_back(type);
    node_def r;
    r.name = "_retval_" + std::to_string(i);
    r.op = "_Retval";
    r.device = n.def->device;
    r.attrs["T"] = type;
    r.attrs["index"] = static_cast<int64_t>(i);
    auto f = fed.find({t.node, t.port});
    if (f != fed.end()) {
      r.inputs.push_back(f->second);
    } else {
      r.inputs.push_back(tensor_name(n.name(), t.port));
      need(t.node);
    }
    retvals.push_back(std::move(r));
  }
  for (const std::string& target : sig.targets) {
    auto id = full.find(target);
    if (!id) return errors::not_found("target '", target, "': no node named '", target, "' in the graph");
    need(*id);
  }
  while (!stack.empty()) {
    const graph_node& n = full.node(stack.back());
    stack.pop_back();
    for (int slot = 0; slot < n.num_inputs(); ++slot) {
      const in_edge& e = n.inputs[slot];
      if (!fed.count({e.src, e.src_port})) need(e.src);
    }
    for (int c : n.control_inputs) need(c);
  }
  for (int id : full.topo_order()) {
    if (!needed[id]) continue;
    const graph_node& n = full.node(id);
    node_def copy = *n.def;
    for (int slot = 0; slot < n.num_inputs(); ++slot) {
      auto f = fed.find({n.inputs[slot].src, n.inputs[slot].src_port});
      if (f != fed.end()) copy.inputs[slot] = f->second;
    }
    out.def.nodes.push_back(std::move(copy));
  }
  for (auto& r : retvals) out.def.nodes.push_back(std::move(r));
  return out;
}

}  // namespace caflow
