#include "graph/ir/memory_types.hpp"

#include <map>
#include <set>
#include <tuple>

#include "graph/ir/shape_inference.hpp"

namespace caflow {

// The copies this pass inserts, with kernels for every device type (kernels/cpu/
// memory_copy_kernels.cpp): each takes one tensor and returns it in the other memory.
CAFLOW_REGISTER_OP("_CopyToHost")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("_CopyFromHost")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .cheap()
    .set_shape_fn(shape_fns::unchanged);
// A Const whose value stays in host memory on any device (TF's HostConst).
CAFLOW_REGISTER_OP("HostConst")
    .output("output: dtype")
    .attr("value: tensor")
    .attr("dtype: type")
    .cheap()
    .set_shape_fn(shape_fns::unknown);

namespace {

struct consumer {
  int node;
  int slot;
  bool wants_host;
  bool any_memory;  // a _Send takes a value in either memory (its _Recv copies it)
};

}  // namespace

status ensure_memory_types(graph_def& partition, const memory_type_query& q) {
  if (q.host_device || !q.types) return {};
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(partition, {.infer_shapes = false}));
  const int n = g.num_nodes();
  for (int id = 0; id < n; ++id)
    if (g.node(id).name() != partition.nodes[static_cast<size_t>(id)].name)
      return errors::internal("graph::build reordered the nodes of a partition");
  std::vector<std::vector<bool>> in_host(n), out_host(n);
  for (int id = 0; id < n; ++id) q.types(*g.node(id).def, in_host[id], out_host[id]);
  auto at = [](const std::vector<bool>& v, int i) {
    return static_cast<size_t>(i) < v.size() && v[static_cast<size_t>(i)];
  };
  // Consumers of every (node, port), by data input.
  std::map<std::pair<int, int>, std::vector<consumer>> consumers;
  for (int id = 0; id < n; ++id) {
    const graph_node& node = g.node(id);
    for (int slot = 0; slot < node.num_inputs(); ++slot) {
      if (node.sig.input_is_ref[slot]) continue;  // a reference lives with its variable
      const in_edge& e = node.inputs[slot];
      consumers[{e.src, e.src_port}].push_back(
          {id, slot, at(in_host[id], slot), node.def->op == "_Send"});
    }
  }
  // Producers that may choose their memory choose the one all their consumers read.
  std::vector<node_def>& nodes = partition.nodes;  // same order as the graph's ids
  for (auto& [out, users] : consumers) {
    const auto [src, port] = out;
    const std::string& op = nodes[src].op;
    if (op != "Const" && op != "_Recv") continue;
    bool all_host = true;
    for (const consumer& c : users) all_host = all_host && (c.wants_host || c.any_memory);
    if (!all_host) continue;
    if (op == "Const")
      nodes[src].op = "HostConst";
    else
      nodes[src].attrs["recv_on_host"] = true;
    if (out_host[src].size() <= static_cast<size_t>(port)) out_host[src].resize(port + 1, false);
    out_host[src][port] = true;
  }
  // Every other edge between memories gets a copy, one per tensor and direction.
  std::set<std::string> taken;
  for (const node_def& d : nodes) taken.insert(d.name);
  std::map<std::tuple<int, int, bool>, std::string> copies;
  std::vector<node_def> added;
  for (auto& [out, users] : consumers) {
    const auto [src, port] = out;
    const bool src_host = at(out_host[src], port);
    for (const consumer& c : users) {
      if (c.any_memory || c.wants_host == src_host) continue;
      auto [it, fresh] = copies.try_emplace({src, port, c.wants_host});
      if (fresh) {
        node_def copy;
        const std::string base = errors::concat("_", c.wants_host ? "to_host" : "from_host", "_",
                                                nodes[src].name, "_", port);
        copy.name = base;
        for (int k = 1; taken.count(copy.name); ++k) copy.name = errors::concat(base, "_", k);
        taken.insert(copy.name);
        copy.op = c.wants_host ? "_CopyToHost" : "_CopyFromHost";
        copy.device = nodes[src].device;
        copy.inputs = {tensor_name(nodes[src].name, port)};
        copy.attrs["T"] = g.node(src).sig.output_types[port];
        it->second = copy.name;
        added.push_back(std::move(copy));
      }
      // The consumer's slot-th data input is its slot-th entry: data inputs come first.
      nodes[c.node].inputs[c.slot] = it->second;
    }
    // A value copied to the host anyway (a fetch of a GPU value, say) leaves this device from
    // there, so a _Recv on the host does not copy it a second time.
    if (auto host_copy = copies.find({src, port, true}); host_copy != copies.end())
      for (const consumer& c : users)
        if (c.any_memory) nodes[c.node].inputs[c.slot] = host_copy->second;
  }
  for (node_def& d : added) nodes.push_back(std::move(d));
  return {};
}

}  // namespace caflow
