#include "graph/client/ops/control_flow_ops.hpp"

#include <memory>

#include "graph/client/control_flow_context.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"

namespace caflow::ops {

switch_outputs switch_(const scope& s, const output& data, const output& pred) {
  operation op = node_builder(s, "Switch").input(data).input(pred).finalize();
  return {op.out(0), op.out(1)};
}

switch_outputs ref_switch(const scope& s, const output& data, const output& pred) {
  operation op = node_builder(s, "RefSwitch").input(data).input(pred).finalize();
  return {op.out(0), op.out(1)};
}

merge_outputs merge(const scope& s, const std::vector<output>& inputs) {
  operation op = node_builder(s, "Merge").input_list(inputs).finalize();
  return {op.out(0), op.out(1)};
}

namespace {

output enter_node(const scope& s, const char* op, const output& data,
                  const std::string& frame_name, const enter_attrs& attrs) {
  return node_builder(s, op).input(data).attr("frame_name", frame_name)
      .attr("is_constant", attrs.is_constant).attr("parallel_iterations", attrs.parallel_iterations)
      .finalize().out();
}

status error(const std::string& what, const auto&... parts) {
  return errors::invalid_argument(what, ": ", parts...);
}

}  // namespace

output enter(const scope& s, const output& data, const std::string& frame_name,
             const enter_attrs& attrs) {
  return enter_node(s, "Enter", data, frame_name, attrs);
}

output ref_enter(const scope& s, const output& data, const std::string& frame_name,
                 const enter_attrs& attrs) {
  return enter_node(s, "RefEnter", data, frame_name, attrs);
}

output exit(const scope& s, const output& data) {
  return node_builder(s, "Exit").input(data).finalize().out();
}

output next_iteration(const scope& s, const output& data) {
  return node_builder(s, "NextIteration").input(data).finalize().out();
}

output loop_cond(const scope& s, const output& pred) {
  return node_builder(s, "LoopCond").input(pred).finalize().out();
}

operation control_trigger(const scope& s) { return node_builder(s, "ControlTrigger").finalize(); }

std::vector<output> cond(const scope& s, const output& pred, const branch_fn& true_fn,
                         const branch_fn& false_fn) {
  if (!s.ok()) return {};
  const scope cs = s.new_sub_scope("cond");
  const std::string name = cs.unique_name("cond");  // for messages only
  if (pred.type != dtype::boolean) {
    s.update_status(error("cond '" + name + "'", "pred is ", dtype_name(pred.type),
                          ", must be bool"));
    return {};
  }
  if (const partial_shape p = s.shape_of(pred); p.rank_known() && p.rank() != 0) {
    s.update_status(error("cond '" + name + "'", "pred must be a scalar, got shape ",
                          p.to_string()));
    return {};
  }
  const switch_outputs sw = switch_(cs, pred, pred);
  const output pivot_t = identity(cs.with_op_name("switch_t"), sw.output_true);
  const output pivot_f = identity(cs.with_op_name("switch_f"), sw.output_false);
  const output pred_id = identity(cs.with_op_name("pred_id"), pred);
  auto build = [&](int branch, const output& pivot, const branch_fn& fn) {
    auto ctx = std::make_shared<cond_context>(cs, pred_id, branch, pivot.node);
    ctx->add_member(pivot.node);
    const scope inside =
        cs.with_no_control_dependencies().with_control_flow_context(ctx).new_sub_scope(
            branch == 1 ? "true" : "false");
    std::vector<output> outs = fn(inside);
    // A branch may return an outside value as it is: it still has to come through its Switch.
    for (output& o : outs) o = ctx->route(o);
    return outs;
  };
  const std::vector<output> outs_t = build(1, pivot_t, true_fn);
  const std::vector<output> outs_f = build(0, pivot_f, false_fn);
  if (!s.ok()) return {};
  if (outs_t.size() != outs_f.size()) {
    s.update_status(error("cond '" + name + "'", "the true branch returns ", outs_t.size(),
                          " values, the false branch ", outs_f.size()));
    return {};
  }
  std::vector<output> result;
  for (size_t i = 0; i < outs_t.size(); ++i) {
    if (outs_t[i].type != outs_f[i].type) {
      s.update_status(error("cond '" + name + "'", "output ", i, " is ",
                            dtype_name(outs_t[i].type), " in the true branch but ",
                            dtype_name(outs_f[i].type), " in the false branch"));
      return {};
    }
    result.push_back(merge(cs, {outs_f[i], outs_t[i]}).out);
  }
  return result;
}

namespace {

// The loop variables as they enter: relaxed to their shape invariants first, so the loop's
// Merge (and everything after it) has the invariant's shape.
std::vector<output> entering_values(const scope& s, const std::string& loop,
                                    const std::vector<output>& vars,
                                    const while_loop_options& o) {
  if (o.shape_invariants.empty()) return vars;
  if (o.shape_invariants.size() != vars.size()) {
    s.update_status(error("while loop '" + loop + "'", o.shape_invariants.size(),
                          " shape invariants for ", vars.size(), " loop variables"));
    return {};
  }
  std::vector<output> out;
  for (size_t i = 0; i < vars.size(); ++i) {
    const partial_shape have = s.shape_of(vars[i]);
    if (!have.compatible_with(o.shape_invariants[i])) {
      s.update_status(error("while loop '" + loop + "'", "loop variable ", i, " has shape ",
                            have.to_string(), ", which its shape invariant ",
                            o.shape_invariants[i].to_string(), " does not allow"));
      return {};
    }
    out.push_back(placeholder_with_default(s.with_op_name("shape_invariant"), vars[i],
                                           o.shape_invariants[i]));
  }
  return out;
}

}  // namespace

std::vector<output> while_loop(const scope& s, const std::vector<output>& loop_vars,
                               const loop_cond_fn& cond, const loop_body_fn& body,
                               const while_loop_options& options) {
  if (!s.ok()) return {};
  const scope ls = s.new_sub_scope("while");
  const std::string frame = ls.unique_name("while_context");
  auto fail = [&](const auto&... parts) {
    s.update_status(error("while loop '" + frame + "'", parts...));
    return std::vector<output>{};
  };
  if (loop_vars.empty()) return fail("needs at least one loop variable");
  if (options.parallel_iterations < 1)
    return fail("parallel_iterations is ", options.parallel_iterations, ", must be at least 1");
  if (options.maximum_iterations && *options.maximum_iterations < 0)
    return fail("maximum_iterations is ", *options.maximum_iterations, ", must be at least 0");
  // maximum_iterations: a counter runs as an extra first loop variable, as TF does.
  std::vector<output> vars = loop_vars;
  std::vector<partial_shape> invariants = options.shape_invariants;
  const bool counted = options.maximum_iterations.has_value();
  if (counted) {
    vars.insert(vars.begin(), constant(ls.with_op_name("iteration_counter"),
                                       tensor::scalar<int64_t>(0)));
    if (!invariants.empty()) invariants.insert(invariants.begin(), partial_shape{});
  }
  while_loop_options relaxed = options;
  relaxed.shape_invariants = invariants;
  const std::vector<output> entering = entering_values(ls, frame, vars, relaxed);
  if (!s.ok()) return {};

  auto ctx = std::make_shared<while_context>(ls, frame, options.parallel_iterations);
  const scope inside = ls.with_no_control_dependencies().with_control_flow_context(ctx);
  std::vector<output> merges;
  for (const output& v : entering) {
    const output e = enter(ls, v, frame, {.is_constant = false,
                                          .parallel_iterations = options.parallel_iterations});
    ctx->add_member(e.node);
    merges.push_back(merge(inside, {e, e}).out);  // input 1 becomes the back edge below
  }
  if (!s.ok()) return {};
  ctx->set_pivot(merges[0].node);

  const std::vector<output> user_merges(merges.begin() + (counted ? 1 : 0), merges.end());
  output pred = cond(inside.new_sub_scope("cond"), user_merges);
  if (!s.ok()) return {};
  if (!pred.valid() || pred.type != dtype::boolean)
    return fail("its cond returns ", pred.valid() ? dtype_name(pred.type) : "nothing",
                ", must return a bool scalar");
  if (const partial_shape p = s.shape_of(pred); p.rank_known() && p.rank() != 0)
    return fail("its cond returns shape ", p.to_string(), ", must return a bool scalar");
  if (counted) {
    const output below = less(inside.with_op_name("below_maximum_iterations"), merges[0],
                              constant(inside, tensor::scalar<int64_t>(*options.maximum_iterations)));
    pred = select(inside.with_op_name("cond_and_below"), below, pred,
                  constant(inside, tensor::scalar<bool>(false)));
  }
  const output lc = loop_cond(inside, pred);
  std::vector<output> exits, body_in;
  for (const output& m : merges) {
    const switch_outputs sw = switch_(inside, m, lc);
    exits.push_back(exit(inside, sw.output_false));
    body_in.push_back(identity(inside, sw.output_true));
  }
  if (!s.ok()) return {};
  ctx->set_pivot(body_in[0].node);

  const std::vector<output> user_in(body_in.begin() + (counted ? 1 : 0), body_in.end());
  std::vector<output> next = body(inside.new_sub_scope("body"), user_in);
  if (!s.ok()) return {};
  if (next.size() != user_in.size())
    return fail("its body returns ", next.size(), " values for ", user_in.size(),
                " loop variables");
  if (counted)
    next.insert(next.begin(), add(inside.with_op_name("next_iteration_counter"), body_in[0],
                                  constant(inside, tensor::scalar<int64_t>(1))));
  for (size_t i = 0; i < next.size(); ++i) {
    output v = ctx->route(next[i]);  // the body may return an outside value unchanged
    const size_t user_index = i - (counted ? 1 : 0);
    if (v.type != merges[i].type)
      return fail("its body changes loop variable ", user_index, " from ",
                  dtype_name(merges[i].type), " to ", dtype_name(v.type));
    const partial_shape want = s.shape_of(merges[i]);
    const partial_shape got = s.shape_of(v);
    if (!got.compatible_with(want))
      return fail("its body changes the shape of loop variable ", user_index, " from ",
                  want.to_string(), " to ", got.to_string(),
                  "; declare a shape invariant that allows both");
    const output n = next_iteration(inside, v);
    s.update_input(merges[i].node, 1, n.name());
  }
  if (!s.ok()) return {};
  std::vector<output> result(exits.begin() + (counted ? 1 : 0), exits.end());
  // Without back_prop, as TF's: the results are constants to the gradient machinery, so no
  // gradient loop (nor forward history) is ever built for this loop.
  if (!options.back_prop)
    for (output& r : result) r = stop_gradient(ls.with_op_name("no_back_prop"), r);
  return result;
}

}  // namespace caflow::ops
