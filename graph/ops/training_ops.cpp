// The optimizers' update ops, dense (Apply*) and sparse (SparseApply*): registrations and shape
// functions.
#include <initializer_list>

#include "graph/ir/op_def.hpp"
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

// The sparse updates: `like_var` inputs have var's shape; grad (input `g`) holds one row of var
// per entry of the vector indices (input g + 1): grad.shape = [len(indices)] + var.shape[1:].
status sparse_apply_shape(shape_context& c, std::initializer_list<int> like_var, int g,
                          std::initializer_list<int> scalars) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(g, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(g + 1, 1));
  const partial_shape &grad = c.input(g), &indices = c.input(g + 1);
  if (grad.rank_known() && indices.rank_known() && grad.dim(0) >= 0 && indices.dim(0) >= 0 &&
      grad.dim(0) != indices.dim(0))
    return c.error("grad of shape ", grad.to_string(),
                   " must have one row per index, but indices has shape ", indices.to_string());
  CAFLOW_RETURN_IF_ERROR(apply_shape(c, like_var, scalars));
  const partial_shape& var = c.outputs()[0];
  if (var.rank_known() && grad.rank_known()) {
    bool rows_match = var.rank() == grad.rank();
    for (int d = 1; rows_match && d < var.rank(); ++d)
      rows_match = var.dim(d) < 0 || grad.dim(d) < 0 || var.dim(d) == grad.dim(d);
    if (!rows_match)
      return c.error("grad of shape ", grad.to_string(), " does not match var of shape ",
                     var.to_string(), " in dimensions 1 and up");
  }
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

// The sparse updates touch only the rows `indices` names, in index order, so a repeated index
// updates its row twice, as TF's CPU kernels do.
// TF 1.x's GradientDescentOptimizer updates rows with ScatterSub of lr * grad; one kernel does
// both here: var[indices[k]] -= alpha * grad[k].
CAFLOW_REGISTER_OP("SparseApplyGradientDescent")
    .input("var: Ref(T)").input("alpha: T").input("grad: T").input("indices: Tindices")
    .output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .attr("use_locking: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return sparse_apply_shape(c, {}, 2, {1}); });

CAFLOW_REGISTER_OP("SparseApplyRMSProp")
    .input("var: Ref(T)").input("ms: Ref(T)").input("mom: Ref(T)").input("lr: T")
    .input("rho: T").input("momentum: T").input("epsilon: T").input("grad: T")
    .input("indices: Tindices").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .attr("use_locking: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return sparse_apply_shape(c, {1, 2}, 7, {3, 4, 5, 6}); });

CAFLOW_REGISTER_OP("SparseApplyMomentum")
    .input("var: Ref(T)").input("accum: Ref(T)").input("lr: T").input("grad: T")
    .input("indices: Tindices").input("momentum: T").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .attr("use_locking: bool = false").attr("use_nesterov: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return sparse_apply_shape(c, {1}, 3, {2, 5}); });

CAFLOW_REGISTER_OP("SparseApplyAdagrad")
    .input("var: Ref(T)").input("accum: Ref(T)").input("lr: T").input("grad: T")
    .input("indices: Tindices").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .attr("use_locking: bool = false").attr("update_slots: bool = true").stateful()
    .set_shape_fn([](shape_context& c) { return sparse_apply_shape(c, {1}, 3, {2}); });

CAFLOW_REGISTER_OP("SparseApplyFtrl")
    .input("var: Ref(T)").input("accum: Ref(T)").input("linear: Ref(T)").input("grad: T")
    .input("indices: Tindices").input("lr: T").input("l1: T").input("l2: T")
    .input("lr_power: T").output("out: Ref(T)")
    .attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .attr("use_locking: bool = false").stateful()
    .set_shape_fn([](shape_context& c) { return sparse_apply_shape(c, {1, 2}, 3, {5, 6, 7, 8}); });

}  // namespace caflow
