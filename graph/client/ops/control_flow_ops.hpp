#pragma once
// TensorFlow 1.x control-flow primitives (graph/ir/control_flow.hpp says what each does) and
// the two constructs built from them:
//
//   auto y = ops::cond(s, pred, [&](const scope& t) { return std::vector{ops::square(t, x)}; },
//                               [&](const scope& f) { return std::vector{ops::neg(f, x)}; });
//   auto out = ops::while_loop(s, {i0, acc0},
//       [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], n); },
//       [&](const scope& b, const std::vector<output>& v) {
//         return std::vector{ops::add(b, v[0], one), ops::mul(b, v[1], two)};
//       });
//
// Build a branch or a loop's cond and body through the scope they are given: values they use
// from outside are then routed in for them (through a Switch for a cond, a constant Enter for a
// loop), nodes without inputs are tied to the branch or iteration, and outside control inputs
// are routed the same way. A scope captured from outside bypasses that, and the graph is then
// rejected when built ("reached from two execution frames").
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// The raw primitives.
struct switch_outputs {
  output output_false;
  output output_true;
};
switch_outputs switch_(const scope& s, const output& data, const output& pred);
// `data` a reference to a variable: both outputs are references (RefSwitch).
switch_outputs ref_switch(const scope& s, const output& data, const output& pred);
struct merge_outputs {
  output out;
  output value_index;
};
merge_outputs merge(const scope& s, const std::vector<output>& inputs);
struct enter_attrs {
  bool is_constant = false;
  int64_t parallel_iterations = 10;
};
output enter(const scope& s, const output& data, const std::string& frame_name,
             const enter_attrs& attrs = {});
output ref_enter(const scope& s, const output& data, const std::string& frame_name,
                 const enter_attrs& attrs = {});
output exit(const scope& s, const output& data);
output next_iteration(const scope& s, const output& data);
output loop_cond(const scope& s, const output& pred);
operation control_trigger(const scope& s);

using branch_fn = std::function<std::vector<output>(const scope&)>;
// TF's tf.cond: the outputs of `true_fn` when `pred` (a bool scalar) is true, else those of
// `false_fn`; only the taken branch runs. Both branches must return as many outputs, of the
// same dtypes. The result's shapes are the most specific ones both branches agree on.
std::vector<output> cond(const scope& s, const output& pred, const branch_fn& true_fn,
                         const branch_fn& false_fn);

using loop_cond_fn = std::function<output(const scope&, const std::vector<output>&)>;
using loop_body_fn = std::function<std::vector<output>(const scope&, const std::vector<output>&)>;
struct while_loop_options {
  // Iterations that may run at once; more overlap, more memory.
  int64_t parallel_iterations = 10;
  // Stops the loop after this many iterations, as TF's maximum_iterations: no error, the
  // outputs are the loop variables after the last iteration run.
  std::optional<int64_t> maximum_iterations;
  // Per loop variable, a shape the body may change it within (TF's shape_invariants); empty:
  // each variable keeps the shape it enters with.
  std::vector<partial_shape> shape_invariants;
  // false: the results carry no gradient (StopGradient), as TF's back_prop=False.
  bool back_prop = true;
};
// TF's tf.while_loop: runs `body` while `cond` holds, starting from `loop_vars`; returns the
// final values. Errors (in the scope): no loop variables, a body that returns another number of
// values, changes a variable's dtype, or its shape beyond the shape invariant, or a cond that
// is not a bool scalar.
std::vector<output> while_loop(const scope& s, const std::vector<output>& loop_vars,
                               const loop_cond_fn& cond, const loop_body_fn& body,
                               const while_loop_options& options = {});

}  // namespace caflow::ops
