#include "graph/client/ops/training_ops.hpp"

#include <initializer_list>

#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

const std::string& input_name(const shape_context& c, int i) {
  return op_registry::global().lookup(c.node().op)->inputs[i].name;
}

// Input 0 is the variable; `like_var` lists the inputs that must have its shape (slots and
// the gradient), `scalars` the hyperparameters. The output is the variable's shape as far as
// all of them pin it down.
status apply_shape(shape_context& c, std::initializer_list<int> like_var,
                   std::initializer_list<int> scalars) {
  partial_shape var = c.input(0);
  for (int i : like_var) {
    auto merged = var.merge(c.input(i));
    if (!merged.ok())
      return c.error(input_name(c, i), " of shape ", c.input(i).to_string(),
                     " does not match var of shape ", var.to_string());
    var = *merged;
  }
  for (int i : scalars) {
    if (c.input(i).rank_known() && c.input(i).rank() != 0)
      return c.error(input_name(c, i), " must be a scalar but has shape ",
                     c.input(i).to_string());
  }
  c.set_output(0, var);
  return {};
}

}  // namespace

// Only float kernels exist, so other dtypes are refused when the graph is built rather than
// when a kernel is looked up.
CAFLOW_REGISTER_OP("ApplyGradientDescent")
    .input("var: Ref(T)").input("alpha: T").input("delta: T").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return apply_shape(c, {2}, {1}); });

CAFLOW_REGISTER_OP("ApplyMomentum")
    .input("var: Ref(T)").input("accum: Ref(T)").input("lr: T").input("grad: T")
    .input("momentum: T").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("use_locking: bool = false")
    .attr("use_nesterov: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return apply_shape(c, {1, 3}, {2, 4}); });

CAFLOW_REGISTER_OP("ApplyAdam")
    .input("var: Ref(T)").input("m: Ref(T)").input("v: Ref(T)").input("beta1_power: T")
    .input("beta2_power: T").input("lr: T").input("beta1: T").input("beta2: T")
    .input("epsilon: T").input("grad: T").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("use_locking: bool = false")
    .attr("use_nesterov: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return apply_shape(c, {1, 2, 9}, {3, 4, 5, 6, 7, 8}); });

CAFLOW_REGISTER_OP("ApplyAdagrad")
    .input("var: Ref(T)").input("accum: Ref(T)").input("lr: T").input("grad: T")
    .output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("use_locking: bool = false")
    .attr("update_slots: bool = true").stateful()
    .set_shape_fn([](shape_context& c) { return apply_shape(c, {1, 3}, {2}); });

CAFLOW_REGISTER_OP("ApplyRMSProp")
    .input("var: Ref(T)").input("ms: Ref(T)").input("mom: Ref(T)").input("lr: T")
    .input("rho: T").input("momentum: T").input("epsilon: T").input("grad: T")
    .output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return apply_shape(c, {1, 2, 7}, {3, 4, 5, 6}); });

namespace ops {

output apply_gradient_descent(const scope& s, const output& var, const output& alpha,
                              const output& delta, const apply_gradient_descent_attrs& attrs) {
  return node_builder(s, "ApplyGradientDescent").input(var).input(alpha).input(delta)
      .attr("use_locking", attrs.use_locking).finalize().out();
}

output apply_momentum(const scope& s, const output& var, const output& accum, const output& lr,
                      const output& grad, const output& momentum,
                      const apply_momentum_attrs& attrs) {
  return node_builder(s, "ApplyMomentum").input(var).input(accum).input(lr).input(grad)
      .input(momentum).attr("use_locking", attrs.use_locking)
      .attr("use_nesterov", attrs.use_nesterov).finalize().out();
}

output apply_adam(const scope& s, const output& var, const output& m, const output& v,
                  const output& beta1_power, const output& beta2_power, const output& lr,
                  const output& beta1, const output& beta2, const output& epsilon,
                  const output& grad, const apply_adam_attrs& attrs) {
  return node_builder(s, "ApplyAdam").input(var).input(m).input(v).input(beta1_power)
      .input(beta2_power).input(lr).input(beta1).input(beta2).input(epsilon).input(grad)
      .attr("use_locking", attrs.use_locking).attr("use_nesterov", attrs.use_nesterov)
      .finalize().out();
}

output apply_adagrad(const scope& s, const output& var, const output& accum, const output& lr,
                     const output& grad, const apply_adagrad_attrs& attrs) {
  return node_builder(s, "ApplyAdagrad").input(var).input(accum).input(lr).input(grad)
      .attr("use_locking", attrs.use_locking).attr("update_slots", attrs.update_slots)
      .finalize().out();
}

output apply_rms_prop(const scope& s, const output& var, const output& ms, const output& mom,
                      const output& lr, const output& rho, const output& momentum,
                      const output& epsilon, const output& grad,
                      const apply_rms_prop_attrs& attrs) {
  return node_builder(s, "ApplyRMSProp").input(var).input(ms).input(mom).input(lr).input(rho)
      .input(momentum).input(epsilon).input(grad).attr("use_locking", attrs.use_locking)
      .finalize().out();
}

}  // namespace ops
}  // namespace caflow
