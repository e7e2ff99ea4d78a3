#include <algorithm>
#include <array>
#include <functional>
#include <queue>
#include <unordered_set>

#include "graph/ir/control_flow.hpp"
#include "graph/ir/passes/constant_folding.hpp"
#include "graph/ir/passes/cse.hpp"
#include "graph/ir/passes/pass.hpp"

namespace caflow {

pass_pipeline pass_pipeline::standard() {
  pass_pipeline p;
  p.add(std::make_unique<cse_pass>());
  p.add(std::make_unique<constant_folding_pass>());
  return p;
}

pass_pipeline& pass_pipeline::add(std::unique_ptr<graph_pass> pass) {
  passes_.push_back(std::move(pass));
  return *this;
}

std::vector<std::string> pass_pipeline::pass_names() const {
  std::vector<std::string> names;
  for (const auto& p : passes_) names.push_back(p->name());
  return names;
}

status_or<const graph*> pass_context::built(const graph_def& g) {
  if (!built_ || built_for_ != &g) {
    forget_built();
    // Inferred shapes let constant folding skip oversized values before computing them;
    // should inference fail on this (already valid) graph, the passes go on without them.
    auto b = graph::build(g);
    if (!b.ok()) b = graph::build(g, {.infer_shapes = false});
    if (!b.ok()) return b.get_status();
    built_ = std::move(b).value();
    built_for_ = &g;
  }
  return &*built_;
}

status_or<std::vector<pass_stats>> pass_pipeline::run(graph_def& g, pass_context& ctx) const {
  ctx.forget_built();  // whatever it held was of another definition
  std::vector<pass_stats> all;
  graph_def work = g;
  // Protected names that the input has; feeds' nodes, for one, are usually pruned away already.
  std::vector<std::string> present;
  {
    std::unordered_set<std::string_view> names;
    for (const node_def& n : g.nodes) names.insert(n.name);
    for (const std::string& keep : ctx.protected_nodes)
      if (names.contains(keep)) present.push_back(keep);
  }
  for (const auto& p : passes_) {
    if (!p->enabled(ctx.options)) continue;
    pass_stats stats;
    stats.pass = p->name();
    stats.nodes_before = static_cast<int64_t>(work.nodes.size());
    CAFLOW_RETURN_IF_ERROR(
        p->run(work, ctx, stats).with_context("graph pass '" + stats.pass + "'"));
    stats.nodes_after = static_cast<int64_t>(work.nodes.size());
    if (stats.removed != 0 || stats.folded != 0 || stats.nodes_after != stats.nodes_before)
      ctx.forget_built();
    // A pass that lost a protected node would surface much later as a confusing "no node named"
    // from the executor or the call frame; catch it here, where the culprit is known.
    std::unordered_set<std::string_view> names;
    for (const node_def& n : work.nodes) names.insert(n.name);
    for (const std::string& keep : present)
      if (!names.contains(keep))
        return errors::internal("graph pass '", stats.pass, "' removed protected node '", keep,
                                "'");
    all.push_back(std::move(stats));
  }
  g = std::move(work);
  return all;
}

std::set<std::string, std::less<>> protected_nodes_for(const graph_def& pruned,
                                                       const run_signature& sig) {
  std::set<std::string, std::less<>> keep;
  const auto add_tensor_node = [&](const std::string& name) {
    auto ref = parse_input(name);
    keep.emplace(ref.ok() ? std::string(ref->node) : name);
  };
  for (const std::string& f : sig.feeds) add_tensor_node(f);
  for (const std::string& f : sig.fetches) add_tensor_node(f);
  for (const std::string& t : sig.targets) keep.insert(t);
  for (const node_def& n : pruned.nodes) {
    const op_def* op = op_registry::global().lookup(n.op);
    if (op && op->is_stateful) keep.insert(n.name);
  }
  return keep;
}

std::string summarize(const std::vector<pass_stats>& stats) {
  std::string out;
  for (const pass_stats& s : stats) {
    if (!out.empty()) out += "; ";
    out += errors::concat(s.pass, ": ", s.nodes_before, " -> ", s.nodes_after, " nodes (",
                          s.removed, " removed");
    if (s.folded) out += errors::concat(", ", s.folded, " folded");
    out += ')';
  }
  return out;
}

bool has_ref_edge(const graph_node& n) {
  for (bool r : n.sig.input_is_ref)
    if (r) return true;
  for (bool r : n.sig.output_is_ref)
    if (r) return true;
  return false;
}

bool is_feed_point(const node_def& n) {
  return n.op == "Placeholder" || n.op == "PlaceholderWithDefault";
}

bool is_control_flow(const node_def& n) { return is_control_flow_op(n.op); }

bool is_pure(const graph_node& n) {
  return !n.op->is_stateful && !has_ref_edge(n) && !is_feed_point(*n.def) &&
         !is_control_flow(*n.def);
}

std::vector<int> definition_topo_order(const graph& g) {
  std::vector<int> pending(g.num_nodes());
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (const graph_node& n : g.nodes()) {
    pending[n.id] = static_cast<int>(n.control_inputs.size());
    for (const in_edge& e : n.inputs)
      if (!is_back_edge(g.node(e.src).def->op, n.def->op)) ++pending[n.id];
    if (pending[n.id] == 0) ready.push(n.id);
  }
  std::vector<int> order;
  order.reserve(g.num_nodes());
  while (!ready.empty()) {
    const int id = ready.top();
    ready.pop();
    order.push_back(id);
    const graph_node& n = g.node(id);
    for (const out_edge& e : n.outputs) {
      if (!e.is_control() && is_back_edge(n.def->op, g.node(e.dst).def->op)) continue;
      if (--pending[e.dst] == 0) ready.push(e.dst);
    }
  }
  return order;
}

}  // namespace caflow
