#include "graph/ir/prune.hpp"

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

// The device a node asks for, directly or through the first node it is colocated with
// (followed a few links: colocation chains are short).
std::string requested_device(const graph& g, const node_def& def) {
  const node_def* n = &def;
  for (int hops = 0; hops < 8; ++hops) {
    if (!n->device.empty()) return n->device;
    auto cls = n->attrs.find("_class");
    if (cls == n->attrs.end() || !cls->second.holds<std::vector<std::string>>()) return {};
    const node_def* next = nullptr;
    for (const std::string& c : cls->second.get<std::vector<std::string>>())
      if (c.starts_with("loc:@"))
        if (auto id = g.find(std::string_view(c).substr(5))) {
          next = g.node(*id).def;
          break;
        }
    if (!next) return {};
    n = next;
  }
  return {};
}

// A kept node colocated with a pruned one (a queue with the global step it was built beside,
// say) keeps the intent: it asks for that node's device instead, and the placer is not sent
// looking for a node the run does not have.
void colocate_with_pruned(const graph& full, const std::vector<bool>& needed, node_def& copy) {
  auto cls = copy.attrs.find("_class");
  if (cls == copy.attrs.end() || !cls->second.holds<std::vector<std::string>>()) return;
  std::vector<std::string> kept;
  for (const std::string& c : cls->second.get<std::vector<std::string>>()) {
    auto id = c.starts_with("loc:@") ? full.find(std::string_view(c).substr(5)) : std::nullopt;
    if (!id || needed[*id]) {
      kept.push_back(c);
    } else if (copy.device.empty()) {
      copy.device = requested_device(full, *full.node(*id).def);
    }
  }
  if (kept.empty())
    copy.attrs.erase(cls);
  else
    cls->second = attr_value(std::move(kept));
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

  // As in TF, a fed Placeholder does not run: the nodes that wait on it by control edge wait
  // on its feed instead (TF.js graphs hang their input's constants on the input this way).
  std::map<int, std::string> fed_placeholders;  // node -> _Arg node name
  for (const auto& [at, arg] : fed) {
    const std::string& op = full.node(at.first).def->op;
    if (at.second == 0 && (op == "Placeholder" || op == "PlaceholderV2"))
      fed_placeholders.emplace(at.first, arg);
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
    r.attrs["T"] = type;
    r.attrs["index"] = static_cast<int64_t>(i);
    auto f = fed.find({t.node, t.port});
    std::string source = n.name();
    if (f != fed.end()) {
      r.inputs.push_back(f->second);
      source = f->second;
    } else {
      r.inputs.push_back(tensor_name(n.name(), t.port));
      need(t.node);
    }
    // A fetch is read where its tensor is, as in TF: a value never travels to another device
    // only to leave for the client, and a fetched variable is read on its own device. The
    // colocation, not a device of its own, decides where it runs.
    r.attrs["_class"] = std::vector<std::string>{"loc:@" + source};
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
    for (int c : n.control_inputs)
      if (!fed_placeholders.count(c)) need(c);
  }
  for (int id : full.topo_order()) {
    if (!needed[id]) continue;
    const graph_node& n = full.node(id);
    node_def copy = *n.def;
    colocate_with_pruned(full, needed, copy);
    for (int slot = 0; slot < n.num_inputs(); ++slot) {
      auto f = fed.find({n.inputs[slot].src, n.inputs[slot].src_port});
      if (f != fed.end()) copy.inputs[slot] = f->second;
    }
    for (size_t k = static_cast<size_t>(n.num_inputs()); k < copy.inputs.size(); ++k) {
      if (copy.inputs[k].empty() || copy.inputs[k][0] != '^') continue;
      auto src = full.find(std::string_view(copy.inputs[k]).substr(1));
      auto p = src ? fed_placeholders.find(*src) : fed_placeholders.end();
      if (p != fed_placeholders.end()) copy.inputs[k] = "^" + p->second;
    }
    out.def.nodes.push_back(std::move(copy));
  }
  for (auto& r : retvals) out.def.nodes.push_back(std::move(r));
  return out;
}

}  // namespace caflow
