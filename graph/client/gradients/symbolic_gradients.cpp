// add_symbolic_gradients: reverse-mode differentiation of the graph under construction.
//
// Only nodes on a path from a requested input to a requested output are differentiated: the
// nodes reachable backwards from the outputs, intersected with those reachable forwards from
// the inputs. Paths run over float32/float64 edges only, so integer tensors (shapes, indices,
// counters) never carry a gradient. Gradients stop only at the stop_gradients tensors: a
// requested input collects what reaches it and passes it on (total derivatives, as TF).
//
// The nodes of that subgraph are visited in reverse topological order, so by the time a node
// is visited every consumer of its outputs has already handed back its share of the gradient;
// the shares of one tensor are summed with AddN (or, when one is sparse, concatenated as
// IndexedSlices: graph/client/gradients/indexed_slices.hpp).
#include <deque>
#include <set>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "graph/client/gradients/gradients.hpp"
#include "graph/client/gradients/while_loop_grad.hpp"
#include "graph/ir/control_flow.hpp"
#include "graph/ir/graph.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

bool is_differentiable(dtype t) { return t == dtype::float32 || t == dtype::float64; }

// One output of a node of the forward graph, by node index.
using tensor_id = std::pair<int, int>;

struct forward_node {
  const node_def* def = nullptr;
  std::vector<tensor_id> inputs;  // data inputs only, in order
  std::vector<dtype> output_types;
  std::vector<std::vector<tensor_id>> consumers;  // per output: (consumer node, input slot)
};

class gradient_builder {
 public:
  gradient_builder(const scope& s, const std::vector<output>& outputs,
                   const std::vector<output>& inputs, const std::vector<output>& grad_outputs,
                   const gradient_options& options, std::string frame = {})
      : scope_(s),
        outputs_(outputs),
        inputs_(inputs),
        grad_outputs_(grad_outputs),
        stop_gradients_(options.stop_gradients),
        options_(options),
        log_(options.log_dense_fallback),
        frame_(std::move(frame)),
        grad_scope_(s.new_sub_scope("gradients")) {}

  status build(std::vector<gradient_value>* grad_inputs);

 private:
  status load_graph();
  // With control flow: which frame each node runs in, and the loops inside the current frame,
  // each made one node (its inputs: the loop's Enter inputs; its outputs: its Exits).
  status load_control_flow();
  bool keeps_edge(int src, int dst) const;
  status backprop_loop(int id, size_t loop, const std::vector<gradient_value>& dys);
  status_or<tensor_id> locate(const output& o, const char* what, size_t i) const;
  status check_arguments();
  void find_paths();
  status_or<std::vector<int>> reverse_topological_order() const;
  status backprop(int node);
  gradient_value sum(const scope& s, const std::vector<gradient_value>& grads) const;
  // The gradients of node `id`'s outputs (zeros for those none reached), as they are for a
  // sparse-aware gradient function, made dense (and logged) for the others.
  std::vector<gradient_value> output_grads(const scope& s, int id, bool dense,
                                           const std::string& why);
  output as_output(tensor_id t) const {
    // A loop's outputs are its Exits'.
    if (t.first >= static_cast<int>(def_.nodes.size()))
      return as_output({loops_[t.first - def_.nodes.size()].exits[t.second], 0});
    const forward_node& n = nodes_[t.first];
    return {n.def->name, t.second, n.output_types[t.second]};
  }
  bool requested(tensor_id t) const { return leaf_grads_.count(t) != 0; }
  bool stopped(tensor_id t) const { return stops_.count(t) != 0; }
  // Hands `grad` to tensor `t`: kept for the caller if `t` is a requested input, queued for
  // its node if that node is on a path, dropped otherwise.
  void send(tensor_id t, const gradient_value& grad);

  const scope& scope_;
  const std::vector<output>& outputs_;
  const std::vector<output>& inputs_;
  const std::vector<output>& grad_outputs_;
  const std::vector<output>& stop_gradients_;
  std::set<tensor_id> stops_;
  gradient_options options_;
  dense_fallback_log log_;
  std::string frame_;  // the while-loop frame differentiated; "" for the root

  graph_def def_;
  std::unique_ptr<graph> graph_;  // set when the graph has control flow
  control_flow_info cf_;
  int current_frame_ = 0;
  std::vector<grad::while_loop_nodes> loops_;
  std::map<int, std::pair<size_t, int>> exit_of_;  // Exit node -> (loop, loop variable)
  std::deque<node_def> loop_defs_;                 // the nodes standing for loops
  std::vector<forward_node> nodes_;
  std::map<std::string, int, std::less<>> index_of_;
  std::vector<tensor_id> output_ids_, input_ids_;
  std::vector<bool> on_path_;
  std::map<tensor_id, std::vector<gradient_value>> pending_;     // gradients of non-leaf tensors
  std::map<tensor_id, std::vector<gradient_value>> leaf_grads_;  // gradients of requested inputs
  scope grad_scope_;
};

status gradient_builder::load_graph() {
  def_ = scope_.to_graph_def();
  nodes_.resize(def_.nodes.size());
  for (size_t i = 0; i < def_.nodes.size(); ++i)
    index_of_.emplace(def_.nodes[i].name, static_cast<int>(i));
  for (size_t i = 0; i < def_.nodes.size(); ++i) {
    const node_def& def = def_.nodes[i];
    forward_node& n = nodes_[i];
    n.def = &def;
    CAFLOW_ASSIGN_OR_RETURN(const op_def* op, op_registry::global().find(def.op));
    CAFLOW_ASSIGN_OR_RETURN(node_signature sig, resolve_signature(*op, def));
    n.output_types = std::move(sig.output_types);
    n.consumers.resize(n.output_types.size());
  }
  if (has_control_flow(def_)) CAFLOW_RETURN_IF_ERROR(load_control_flow());
  for (size_t i = 0; i < def_.nodes.size(); ++i) {
    const node_def& def = def_.nodes[i];
    for (const std::string& in : def.inputs) {
      CAFLOW_ASSIGN_OR_RETURN(input_ref ref, parse_input(in));
      if (ref.is_control()) continue;
      auto src = index_of_.find(ref.node);
      if (src == index_of_.end() ||
          ref.port >= static_cast<int>(nodes_[src->second].output_types.size()))
        return errors::invalid_argument(describe_node(def), ": input '", in,
                                        "' names no output of the graph");
      tensor_id from{src->second, ref.port};
      if (graph_) {
        if (!keeps_edge(from.first, static_cast<int>(i))) continue;
        // A value out of a loop comes from the node standing for the loop.
        if (auto e = exit_of_.find(from.first); e != exit_of_.end())
          from = {static_cast<int>(def_.nodes.size() + e->second.first), e->second.second};
      }
      const int slot = static_cast<int>(nodes_[i].inputs.size());
      nodes_[i].inputs.push_back(from);
      nodes_[from.first].consumers[from.second].emplace_back(static_cast<int>(i), slot);
    }
  }
  return {};
}

status gradient_builder::load_control_flow() {
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(def_, {.infer_shapes = false}));
  graph_ = std::make_unique<graph>(std::move(g));
  CAFLOW_ASSIGN_OR_RETURN(cf_, analyze_control_flow(*graph_));
  current_frame_ = -1;
  for (size_t f = 0; f < cf_.frames.size(); ++f)
    if (cf_.frames[f].name == frame_) current_frame_ = static_cast<int>(f);
  if (current_frame_ < 0)
    return errors::internal("add_symbolic_gradients: no while loop frame '", frame_, "'");
  CAFLOW_ASSIGN_OR_RETURN(loops_, grad::find_while_loops(*graph_, cf_, current_frame_));
  for (size_t l = 0; l < loops_.size(); ++l) {
    const grad::while_loop_nodes& loop = loops_[l];
    for (const auto& f : cf_.frames)
      if (f.parent == loop.frame_index)
        return errors::unimplemented("add_symbolic_gradients: while loop '", loop.frame,
                                     "' has a loop in its body ('", f.name,
                                     "'); gradients of nested loops are not built yet");
    loop_defs_.push_back(node_def{loop.frame, "_WhileLoop", {}, {}, {}});
    forward_node n;
    n.def = &loop_defs_.back();
    for (int e : loop.enters) n.output_types.push_back(graph_->node(e).sig.output_types[0]);
    n.consumers.resize(n.output_types.size());
    const int id = static_cast<int>(nodes_.size());
    for (size_t k = 0; k < loop.exits.size(); ++k) exit_of_[loop.exits[k]] = {l, static_cast<int>(k)};
    std::vector<int> enters = loop.enters;
    enters.insert(enters.end(), loop.constant_enters.begin(), loop.constant_enters.end());
    nodes_.push_back(std::move(n));
    for (int e : enters) {
      const in_edge& src = graph_->node(e).inputs[0];
      const int slot = static_cast<int>(nodes_[id].inputs.size());
      nodes_[id].inputs.emplace_back(src.src, src.src_port);
      nodes_[src.src].consumers[src.src_port].emplace_back(id, slot);
    }
  }
  return {};
}

// Only the current frame's edges: those between its nodes, from the Enters into it, and from
// the Exits of the loops inside it. A loop's back edge never carries a gradient.
bool gradient_builder::keeps_edge(int src, int dst) const {
  if (is_back_edge(def_.nodes[src].op, def_.nodes[dst].op)) return false;
  if (cf_.frame_of[dst] != current_frame_) return false;
  if (cf_.frame_of[src] == current_frame_) return true;
  if (exit_of_.count(src)) return true;
  if (control_flow_kind_of(def_.nodes[src].op) == control_flow_kind::enter) {
    std::string name;
    get_attr(def_.nodes[src], "frame_name", &name).ignore();
    return name == frame_;
  }
  return false;
}

status_or<tensor_id> gradient_builder::locate(const output& o, const char* what, size_t i) const {
  if (!o.valid())
    return errors::invalid_argument("add_symbolic_gradients: ", what, "[", i,
                                    "] is an invalid output (from a failed op?)");
  auto it = index_of_.find(o.node);
  if (it == index_of_.end() || o.index < 0 ||
      o.index >= static_cast<int>(nodes_[it->second].output_types.size()))
    return errors::invalid_argument("add_symbolic_gradients: ", what, "[", i, "] ('", o.name(),
                                    "') is not an output of the scope's graph");
  const dtype actual = nodes_[it->second].output_types[o.index];
  if (!is_differentiable(actual))
    return errors::invalid_argument("add_symbolic_gradients: ", what, "[", i, "] ('", o.name(),
                                    "') is ", dtype_name(actual),
                                    ": only float32 and float64 tensors have gradients");
  return tensor_id{it->second, o.index};
}

status gradient_builder::check_arguments() {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor_id t, locate(outputs_[i], "outputs", i));
    output_ids_.push_back(t);
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor_id t, locate(inputs_[i], "inputs", i));
    input_ids_.push_back(t);
    leaf_grads_[t];  // marks `t` as a leaf
  }
  for (size_t i = 0; i < stop_gradients_.size(); ++i) {
    const output& o = stop_gradients_[i];
    auto it = index_of_.find(o.node);
    if (!o.valid() || it == index_of_.end() || o.index < 0 ||
        o.index >= static_cast<int>(nodes_[it->second].output_types.size()))
      return errors::invalid_argument("add_symbolic_gradients: stop_gradients[", i, "] ('",
                                      o.name(), "') is not an output of the scope's graph");
    stops_.insert({it->second, o.index});
  }
  if (grad_outputs_.empty()) return {};
  if (grad_outputs_.size() != outputs_.size())
    return errors::invalid_argument("add_symbolic_gradients: ", grad_outputs_.size(),
                                    " grad_outputs given for ", outputs_.size(),
                                    " outputs; pass one per output, or none for ones");
  for (size_t i = 0; i < grad_outputs_.size(); ++i) {
    const output& g = grad_outputs_[i];
    if (!g.valid())
      return errors::invalid_argument("add_symbolic_gradients: grad_outputs[", i,
                                      "] is an invalid output (from a failed op?)");
    const dtype want = nodes_[output_ids_[i].first].output_types[output_ids_[i].second];
    if (g.type != want)
      return errors::invalid_argument("add_symbolic_gradients: grad_outputs[", i, "] ('", g.name(),
                                      "') is ", dtype_name(g.type), " but outputs[", i, "] ('",
                                      outputs_[i].name(), "') is ", dtype_name(want));
  }
  return {};
}

void gradient_builder::find_paths() {
  const size_t n = nodes_.size();
  // Backwards from the outputs, not through stopped tensors.
  std::vector<bool> reaches_output(n, false);
  std::vector<int> stack;
  for (tensor_id t : output_ids_)
    if (!stopped(t) && !reaches_output[t.first]) {
      reaches_output[t.first] = true;
      stack.push_back(t.first);
    }
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    for (tensor_id src : nodes_[id].inputs) {
      if (stopped(src) || reaches_output[src.first]) continue;
      if (!is_differentiable(nodes_[src.first].output_types[src.second])) continue;
      reaches_output[src.first] = true;
      stack.push_back(src.first);
    }
  }
  // Forwards from the requested inputs, again not through stopped tensors.
  std::vector<bool> reached_from_input(n, false);
  auto visit_consumers = [&](tensor_id t) {
    if (!is_differentiable(nodes_[t.first].output_types[t.second])) return;
    for (tensor_id c : nodes_[t.first].consumers[t.second])
      if (!reached_from_input[c.first]) {
        reached_from_input[c.first] = true;
        stack.push_back(c.first);
      }
  };
  for (tensor_id t : input_ids_) visit_consumers(t);
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    for (int p = 0; p < static_cast<int>(nodes_[id].output_types.size()); ++p)
      if (!stopped({id, p})) visit_consumers({id, p});
  }
  on_path_.assign(n, false);
  for (size_t i = 0; i < n; ++i) on_path_[i] = reaches_output[i] && reached_from_input[i];
}

status_or<std::vector<int>> gradient_builder::reverse_topological_order() const {
  const int n = static_cast<int>(nodes_.size());
  std::vector<int> waiting(n, 0), order;
  for (int i = 0; i < n; ++i) {
    if (!on_path_[i]) continue;
    for (tensor_id src : nodes_[i].inputs)
      if (on_path_[src.first]) ++waiting[i];
  }
  for (int i = 0; i < n; ++i)
    if (on_path_[i] && waiting[i] == 0) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (const auto& consumers : nodes_[order[k]].consumers)
      for (tensor_id c : consumers)
        if (on_path_[c.first] && --waiting[c.first] == 0) order.push_back(c.first);
  int expected = 0;
  for (int i = 0; i < n; ++i) expected += on_path_[i] ? 1 : 0;
  if (static_cast<int>(order.size()) != expected)
    return errors::invalid_argument("add_symbolic_gradients: the graph has a cycle");
  return std::vector<int>(order.rbegin(), order.rend());
}

gradient_value gradient_builder::sum(const scope& s,
                                    const std::vector<gradient_value>& grads) const {
  return grad::aggregate(s, grads,
                         options_.aggregation == aggregation_method::experimental_tree);
}

std::vector<gradient_value> gradient_builder::output_grads(const scope& s, int id, bool dense,
                                                           const std::string& why) {
  std::vector<gradient_value> dys;
  for (int p = 0; p < static_cast<int>(nodes_[id].output_types.size()); ++p) {
    auto it = pending_.find({id, p});
    // A stopped tensor's gradient goes no further: the node sees zeros for it.
    if (stopped({id, p}) || it == pending_.end()) {
      dys.push_back(ops::zeros_like(s, as_output({id, p})));
      continue;
    }
    const gradient_value g = sum(s, it->second);
    dys.push_back(dense ? gradient_value(grad::to_dense(s, g, why, log_)) : g);
  }
  return dys;
}

void gradient_builder::send(tensor_id t, const gradient_value& grad) {
  if (auto leaf = leaf_grads_.find(t); leaf != leaf_grads_.end()) leaf->second.push_back(grad);
  if (!stopped(t) && on_path_[t.first]) pending_[t].push_back(grad);
}

status gradient_builder::backprop(int id) {
  const forward_node& n = nodes_[id];
  const int num_outputs = static_cast<int>(n.output_types.size());
  bool any_gradient = false;
  for (int p = 0; p < num_outputs; ++p)
    if (!stopped({id, p}) && pending_.count({id, p})) any_gradient = true;
  // Nothing differentiable reached this node's outputs (e.g. everything after it went through
  // an op without a gradient): its inputs would only get zeros.
  if (!any_gradient) return {};
  if (id >= static_cast<int>(def_.nodes.size())) {
    const size_t l = static_cast<size_t>(id) - def_.nodes.size();
    const scope s = grad_scope_.new_sub_scope(loops_[l].frame + "_grad");
    std::vector<gradient_value> dys;
    for (int p = 0; p < num_outputs; ++p) {
      auto it = pending_.find({id, p});
      dys.push_back(stopped({id, p}) || it == pending_.end() ? gradient_value{}
                                                              : sum(grad_scope_, it->second));
    }
    return backprop_loop(id, l, dys);
  }

  const gradient_registry& registry = gradient_registry::global();
  if (registry.is_no_gradient(n.def->op)) return {};
  const sparse_gradient_fn* sparse_fn = registry.lookup_sparse(n.def->op);
  const gradient_fn* fn = registry.lookup(n.def->op);
  if (fn == nullptr && sparse_fn == nullptr)
    return errors::not_found("add_symbolic_gradients: no gradient function is registered for ",
                             describe_node(*n.def),
                             ", which lies on a path from an input to an output; register one "
                             "with CAFLOW_REGISTER_GRADIENT(\"",
                             n.def->op, "\", ...)");

  scope s = grad_scope_.new_sub_scope(n.def->name + "_grad");
  // TF's colocate_gradients_with_ops: with the forward node, whatever device the scope asks.
  if (options_.colocate_gradients_with_ops && num_outputs > 0)
    s = s.with_device("").colocate_with(as_output({id, 0}));
  grad_op_info info;
  info.def = *n.def;
  info.log_dense_fallback = log_;
  for (tensor_id src : n.inputs) info.inputs.push_back(as_output(src));
  for (int p = 0; p < num_outputs; ++p) info.outputs.push_back(as_output({id, p}));
  const std::string context = "gradient of " + describe_node(*n.def);
  std::vector<gradient_value> dxs;
  if (sparse_fn != nullptr) {
    const std::vector<gradient_value> dys = output_grads(s, id, false, {});
    CAFLOW_RETURN_IF_ERROR((*sparse_fn)(s, info, dys, &dxs).with_context(context));
  } else {
    const std::vector<gradient_value> dys =
        output_grads(s, id, true, "the gradient function of " + describe_node(*n.def) +
                                      " takes dense gradients");
    std::vector<output> dense_dys, dense_dxs;
    for (const gradient_value& g : dys) dense_dys.push_back(g.dense());
    CAFLOW_RETURN_IF_ERROR((*fn)(s, info, dense_dys, &dense_dxs).with_context(context));
    dxs.assign(dense_dxs.begin(), dense_dxs.end());
  }
  CAFLOW_RETURN_IF_ERROR(s.get_status().with_context(context));
  if (dxs.size() != n.inputs.size())
    return errors::internal(context, ": the gradient function returned ", dxs.size(),
                            " gradients for ", n.inputs.size(), " inputs");
  for (size_t i = 0; i < dxs.size(); ++i) {
    if (!dxs[i].valid()) continue;
    const output& x = info.inputs[i];
    if (!is_differentiable(x.type)) continue;
    if (dxs[i].type() != x.type)
      return errors::internal(context, ": the gradient of input ", i, " ('", x.name(), "') is ",
                              dtype_name(dxs[i].type()), ", expected ", dtype_name(x.type));
    send(n.inputs[i], dxs[i]);
  }
  return {};
}

status gradient_builder::backprop_loop(int id, size_t l,
                                       const std::vector<gradient_value>& sparse_dys) {
  const grad::while_loop_nodes& loop = loops_[l];
  const scope s = grad_scope_.new_sub_scope(loop.frame + "_grad");
  std::vector<output> dys;
  for (const gradient_value& g : sparse_dys)
    dys.push_back(g.valid() ? grad::to_dense(s, g, "while loops take dense gradients", log_)
                            : output{});
  std::vector<output> dxs;
  CAFLOW_RETURN_IF_ERROR(grad::while_loop_gradient(s, *graph_, cf_, loop, dys, &dxs)
                             .with_context("gradient of while loop '" + loop.frame + "'"));
  const forward_node& n = nodes_[id];
  for (size_t i = 0; i < dxs.size() && i < n.inputs.size(); ++i)
    if (dxs[i].valid()) send(n.inputs[i], dxs[i]);
  return {};
}

status gradient_builder::build(std::vector<gradient_value>* grad_inputs) {
  CAFLOW_RETURN_IF_ERROR(scope_.get_status());
  if (grad_inputs == nullptr)
    return errors::invalid_argument("add_symbolic_gradients: grad_inputs is null");
  CAFLOW_RETURN_IF_ERROR(load_graph());
  CAFLOW_RETURN_IF_ERROR(check_arguments());
  find_paths();
  CAFLOW_ASSIGN_OR_RETURN(std::vector<int> order, reverse_topological_order());

  for (size_t i = 0; i < output_ids_.size(); ++i) {
    const output seed =
        grad_outputs_.empty() ? ops::ones_like(grad_scope_, outputs_[i]) : grad_outputs_[i];
    send(output_ids_[i], seed);
  }
  for (int id : order) CAFLOW_RETURN_IF_ERROR(backprop(id));

  std::vector<gradient_value> result;
  std::map<tensor_id, gradient_value> summed;  // an input requested twice is summed once
  for (size_t i = 0; i < inputs_.size(); ++i) {
    auto [it, fresh] = summed.try_emplace(input_ids_[i]);
    if (fresh) {
      const std::vector<gradient_value>& grads = leaf_grads_[input_ids_[i]];
      if (!grads.empty())
        it->second = sum(grad_scope_, grads);
      else if (options_.unconnected == unconnected_gradients::zero)
        it->second = ops::zeros_like(grad_scope_, inputs_[i]);
    }
    result.push_back(it->second);
  }
  CAFLOW_RETURN_IF_ERROR(grad_scope_.get_status());
  *grad_inputs = std::move(result);
  return {};
}

// Dense results: sparse ones are made dense without a log entry, the caller asked for tensors.
std::vector<output> dense_results(const scope& s, const std::vector<gradient_value>& grads) {
  std::vector<output> out;
  for (const gradient_value& g : grads)
    out.push_back(g.is_sparse() ? grad::to_dense(s.new_sub_scope("gradients_dense"), g)
                                : g.dense());  // invalid for an unconnected input
  return out;
}

}  // namespace

status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                              const std::vector<output>& inputs,
                              const std::vector<output>& grad_outputs,
                              const gradient_options& options,
                              std::vector<gradient_value>* grad_inputs) {
  return gradient_builder(s, outputs, inputs, grad_outputs, options).build(grad_inputs);
}

status add_symbolic_gradients(const scope& s, const std::vector<output>& outputs,
                              const std::vector<output>& inputs,
                              const std::vector<output>& grad_outputs,
                              const gradient_options& options, std::vector<output>* grad_inputs) {
  if (grad_inputs == nullptr)
    return errors::invalid_argument("add_symbolic_gradients: grad_inputs is null");
  std::vector<gradient_value> grads;
  CAFLOW_RETURN_IF_ERROR(
      add_symbolic_gradients(s, outputs, inputs, grad_outputs, options, &grads));
  *grad_inputs = dense_results(s, grads);
  return s.get_status();
}

namespace detail {
status add_symbolic_gradients_in_frame(const scope& s, const std::vector<output>& outputs,
                                       const std::vector<output>& inputs,
                                       const std::vector<output>& grad_outputs,
                                       const std::string& frame, std::vector<output>* grad_inputs) {
  // A loop body's inputs are where its gradient ends: held fixed, as each is one iteration's.
  std::vector<gradient_value> grads;
  CAFLOW_RETURN_IF_ERROR(
      gradient_builder(s, outputs, inputs, grad_outputs,
                       {.stop_gradients = inputs, .unconnected = unconnected_gradients::zero},
                       frame)
          .build(&grads));
  *grad_inputs = dense_results(s, grads);
  return s.get_status();
}
}  // namespace detail

}  // namespace caflow
