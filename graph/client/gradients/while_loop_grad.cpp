#include "graph/client/gradients/while_loop_grad.hpp"

#include <map>
#include <memory>

#include "graph/client/control_flow_context.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/control_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow::grad {
namespace {

bool is_float(dtype t) { return t == dtype::float32 || t == dtype::float64; }

// The single consumer of output `port` of `node` that runs `op`, or -1.
int consumer(const graph& g, int node, int port, control_flow_kind kind, int dst_port = -2) {
  for (const out_edge& e : g.node(node).outputs)
    if (!e.is_control() && e.src_port == port && (dst_port == -2 || e.dst_port == dst_port) &&
        control_flow_kind_of(g.node(e.dst).def->op) == kind)
      return e.dst;
  return -1;
}

int identity_consumer(const graph& g, int node, int port) {
  for (const out_edge& e : g.node(node).outputs)
    if (!e.is_control() && e.src_port == port && g.node(e.dst).def->op == "Identity") return e.dst;
  return -1;
}

output out_of(const graph& g, int node, int port = 0) {
  const graph_node& n = g.node(node);
  return {n.name(), port, n.sig.output_types[port]};
}

// The backward loop's view of values from elsewhere: a forward-loop value comes from the loop
// history (pushed forward, popped here), anything else as a constant Enter.
class loop_grad_context final : public control_flow_context {
 public:
  loop_grad_context(scope outer, const graph& g, const control_flow_info& cf,
                    const while_loop_nodes& loop, std::string frame, output forward_index)
      : control_flow_context(std::move(outer), {}), g_(g), cf_(cf), loop_(loop),
        frame_(std::move(frame)), forward_index_(std::move(forward_index)) {}

  void set_backward_index(output index) { backward_index_ = std::move(index); }
  const std::vector<operation>& pushes() const { return pushes_; }

 private:
  output enter_constant(const scope& outer, const output& o, bool as_ref) {
    const ops::enter_attrs attrs{.is_constant = true,
                                 .parallel_iterations = loop_.parallel_iterations};
    const scope s = outer.with_no_control_dependencies();
    return as_ref ? ops::ref_enter(s, o, frame_, attrs) : ops::enter(s, o, frame_, attrs);
  }

  output route_in(const scope& outer, const output& o, bool as_ref) override {
    const auto id = g_.find(o.node);
    // Made after the snapshot (outside the forward loop, by another gradient): outside.
    if (!id) return enter_constant(outer, o, as_ref);
    const graph_node& n = g_.node(*id);
    if (control_flow_kind_of(n.def->op) == control_flow_kind::enter) {
      std::string name;
      get_attr(*n.def, "frame_name", &name).ignore();
      bool constant = false;
      get_attr(*n.def, "is_constant", &constant).ignore();
      if (name == loop_.frame && constant) {
        const in_edge& src = n.inputs[0];
        return enter_constant(outer, out_of(g_, src.src, src.src_port), as_ref);
      }
    }
    if (cf_.frame_of[*id] != loop_.frame_index) return enter_constant(outer, o, as_ref);
    if (as_ref) {
      outer.update_status(errors::unimplemented(
          "the gradient of while loop '", loop_.frame, "' needs the variable reference '",
          o.name(), "' of an iteration; read the variable's value in the loop instead"));
      return o;
    }
    return history_of(outer, o);
  }

  // Pushed by the forward loop under its iteration's index, popped by the backward loop.
  output history_of(const scope& outer, const output& o) {
    const scope s = outer.with_no_control_dependencies();
    const output history = node_builder(s.with_op_name("history"), "_LoopHistory")
                               .attr("elem_type", o.type).attr("history_name", o.name())
                               .finalize().out();
    const ops::enter_attrs forward{.is_constant = true,
                                   .parallel_iterations = loop_.parallel_iterations};
    // A resource handle travels as a reference.
    const output in_forward = ops::ref_enter(s, history, loop_.frame, forward);
    pushes_.push_back(node_builder(s.with_op_name("push"), "_LoopHistoryPush")
                          .input(in_forward).input(forward_index_).input(o).finalize());
    const output in_backward = enter_constant(outer, history, true);
    const output pop = node_builder(s.with_op_name("pop"), "_LoopHistoryPop").input(in_backward)
                           .input(backward_index_).attr("elem_type", o.type).finalize().out();
    add_member(in_backward.node);
    add_member(pop.node);
    return pop;
  }

  std::string route_control_in(const scope& outer, const std::string& node) override {
    const auto id = g_.find(node);
    // Orderings inside the forward loop have no meaning in the backward one.
    if (id && cf_.frame_of[*id] == loop_.frame_index) return "^" + pivot();
    const output after = ops::constant(
        outer.with_no_control_dependencies()
            .with_control_dependencies(std::vector<operation>{operation{node, {}}})
            .with_op_name("control_input"),
        tensor::scalar<int32_t>(0));
    return "^" + enter_constant(outer, after, false).node;
  }

  const graph& g_;
  const control_flow_info& cf_;
  const while_loop_nodes& loop_;
  std::string frame_;
  output forward_index_;
  output backward_index_;
  std::vector<operation> pushes_;
};

}  // namespace

status_or<std::vector<while_loop_nodes>> find_while_loops(const graph& g,
                                                          const control_flow_info& cf, int parent) {
  std::vector<while_loop_nodes> loops;
  std::map<int, size_t> by_frame;
  for (const graph_node& n : g.nodes()) {
    if (control_flow_kind_of(n.def->op) != control_flow_kind::enter) continue;
    std::string name;
    CAFLOW_RETURN_IF_ERROR(get_attr(*n.def, "frame_name", &name));
    int frame = -1;
    for (size_t f = 1; f < cf.frames.size(); ++f)
      if (cf.frames[f].name == name) frame = static_cast<int>(f);
    if (frame < 0 || cf.frames[frame].parent != parent) continue;
    auto [it, fresh] = by_frame.try_emplace(frame, loops.size());
    if (fresh) {
      loops.emplace_back();
      loops.back().frame = name;
      loops.back().frame_index = frame;
      loops.back().parallel_iterations = cf.frames[frame].parallel_iterations;
    }
    while_loop_nodes& loop = loops[it->second];
    bool constant = false;
    CAFLOW_RETURN_IF_ERROR(get_attr(*n.def, "is_constant", &constant));
    if (constant) {
      loop.constant_enters.push_back(n.id);
      continue;
    }
    auto unlike = [&](const char* what) {
      return errors::unimplemented("the gradient of while loop '", name, "': ", describe_node(*n.def),
                                   " ", what, "; only loops built by ops::while_loop are "
                                   "differentiated");
    };
    const int merge = consumer(g, n.id, 0, control_flow_kind::merge);
    if (merge < 0) return unlike("feeds no Merge");
    const int sw = consumer(g, merge, 0, control_flow_kind::switch_, 0);
    if (sw < 0) return unlike("reaches no Switch");
    const int exit = consumer(g, sw, 0, control_flow_kind::exit);
    const int ident = identity_consumer(g, sw, 1);
    if (exit < 0 || ident < 0) return unlike("has no Exit or no body Identity");
    int next = -1;
    for (const in_edge& e : g.node(merge).inputs)
      if (control_flow_kind_of(g.node(e.src).def->op) == control_flow_kind::next_iteration)
        next = e.src;
    if (next < 0) return unlike("has no NextIteration");
    loop.enters.push_back(n.id);
    loop.merges.push_back(merge);
    loop.switches.push_back(sw);
    loop.exits.push_back(exit);
    loop.idents.push_back(ident);
    loop.nexts.push_back(next);
    loop.loop_cond = g.node(sw).inputs[1].src;
  }
  for (const while_loop_nodes& loop : loops)
    if (loop.enters.empty())
      return errors::unimplemented("the gradient of while loop '", loop.frame,
                                   "': it has no loop variable");
  return loops;
}

status while_loop_gradient(const scope& s, const graph& g, const control_flow_info& cf,
                           const while_loop_nodes& loop, const std::vector<output>& dys,
                           std::vector<output>* dxs) {
  const scope plain = s.with_no_control_dependencies();
  const int64_t parallel = loop.parallel_iterations;
  const ops::enter_attrs carried{.is_constant = false, .parallel_iterations = parallel};

  // The forward loop's iteration counter (its increment is made last: it waits on the pushes).
  const output zero = ops::constant(plain.with_op_name("forward_index_init"),
                                    tensor::scalar<int64_t>(0));
  const output count_enter = ops::enter(plain, zero, loop.frame, carried);
  const output count_merge = ops::merge(plain, {count_enter, count_enter}).out;
  const ops::switch_outputs count_switch =
      ops::switch_(plain, count_merge, out_of(g, loop.loop_cond));
  const output forward_count = ops::exit(plain.with_op_name("forward_count"),
                                         count_switch.output_false);
  const output forward_index = ops::identity(plain.with_op_name("forward_index"),
                                             count_switch.output_true);

  // The backward loop: the count, the loop variables' gradients, the outside values'.
  // Every float loop variable, reached by a gradient or not: through the iterations, each may
  // carry gradient to the others (an LSTM's cell state feeds its output).
  std::vector<int> vars;
  for (size_t k = 0; k < loop.exits.size(); ++k)
    if (is_float(out_of(g, loop.exits[k]).type)) vars.push_back(static_cast<int>(k));
  std::vector<int> outside;  // float outside values
  for (size_t j = 0; j < loop.constant_enters.size(); ++j)
    if (is_float(out_of(g, loop.constant_enters[j]).type)) outside.push_back(static_cast<int>(j));
  const std::string frame = plain.unique_name("grad_while_context");
  auto ctx = std::make_shared<loop_grad_context>(plain, g, cf, loop, frame, forward_index);
  const scope inside = plain.with_control_flow_context(ctx);
  std::vector<output> starts{forward_count};
  for (int k : vars)
    starts.push_back(dys[k].valid() ? dys[k] : ops::zeros_like(plain, out_of(g, loop.exits[k])));
  for (int j : outside) {
    const in_edge& x = g.node(loop.constant_enters[j]).inputs[0];
    starts.push_back(ops::zeros_like(plain, out_of(g, x.src, x.src_port)));
  }
  std::vector<output> merges, exits, idents;
  for (const output& v : starts) {
    const output e = ops::enter(plain, v, frame, carried);
    ctx->add_member(e.node);
    merges.push_back(ops::merge(inside, {e, e}).out);
  }
  ctx->set_pivot(merges[0].node);
  const output more = ops::greater(inside, merges[0],
                                   ops::constant(inside, tensor::scalar<int64_t>(0)));
  const output lc = ops::loop_cond(inside, more);
  for (const output& m : merges) {
    const ops::switch_outputs sw = ops::switch_(inside, m, lc);
    exits.push_back(ops::exit(inside, sw.output_false));
    idents.push_back(ops::identity(inside, sw.output_true));
  }
  ctx->set_pivot(idents[0].node);
  const output index =
      ops::sub(inside.with_op_name("backward_index"), idents[0],
               ops::constant(inside, tensor::scalar<int64_t>(1)));
  ctx->set_backward_index(index);
  CAFLOW_RETURN_IF_ERROR(s.get_status());

  // The body's gradient, on forward values of the iteration `index` names.
  std::vector<output> ys, xs, gys, gxs;
  for (size_t i = 0; i < vars.size(); ++i) {
    const in_edge& b = g.node(loop.nexts[vars[i]]).inputs[0];
    ys.push_back(out_of(g, b.src, b.src_port));
    gys.push_back(idents[1 + i]);
    xs.push_back(out_of(g, loop.idents[vars[i]]));
  }
  for (int j : outside) xs.push_back(out_of(g, loop.constant_enters[j]));
  if (!ys.empty())
    CAFLOW_RETURN_IF_ERROR(detail::add_symbolic_gradients_in_frame(
        inside.new_sub_scope("body"), ys, xs, gys, loop.frame, &gxs));
  std::vector<output> next{index};
  for (size_t i = 0; i < vars.size(); ++i) next.push_back(gxs[i]);
  for (size_t j = 0; j < outside.size(); ++j)
    next.push_back(ops::add(inside, idents[1 + vars.size() + j], gxs[vars.size() + j]));
  for (size_t i = 0; i < next.size(); ++i) {
    const output n = ops::next_iteration(inside, ctx->route(next[i]));
    s.update_input(merges[i].node, 1, n.name());
  }

  // Now that every push is known: the forward counter moves on once its iteration pushed.
  const scope after_pushes = plain.with_control_dependencies(ctx->pushes());
  const output one = ops::constant(
      plain.with_control_dependencies(std::vector<output>{forward_index}).with_op_name("one"),
      tensor::scalar<int64_t>(1));
  const output count_next = ops::next_iteration(
      plain, ops::add(after_pushes.with_op_name("forward_index_next"), forward_index, one));
  s.update_input(count_merge.node, 1, count_next.name());
  CAFLOW_RETURN_IF_ERROR(s.get_status());

  dxs->assign(loop.enters.size() + loop.constant_enters.size(), output{});
  for (size_t i = 0; i < vars.size(); ++i) (*dxs)[vars[i]] = exits[1 + i];
  for (size_t j = 0; j < outside.size(); ++j)
    (*dxs)[loop.enters.size() + outside[j]] = exits[1 + vars.size() + j];
  return {};
}

}  // namespace caflow::grad
