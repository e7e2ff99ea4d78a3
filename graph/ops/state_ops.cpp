// Ref variables and their updates: VariableV2, Assign, AssignAdd, AssignSub,
// IsVariableInitialized and the Scatter* ops: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status variable_shape(shape_context& c) {
  partial_shape s;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape", &s));
  c.set_output(0, s);
  return {};
}

status assign_shape(shape_context& c) {
  bool validate = true;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("validate_shape", &validate));
  if (!validate) {
    c.set_output(0, c.input(1));
    return {};
  }
  auto merged = c.input(0).merge(c.input(1));
  if (!merged.ok())
    return c.error("value of shape ", c.input(1).to_string(), " cannot be assigned to a variable of shape ",
                   c.input(0).to_string());
  c.set_output(0, *merged);
  return {};
}

status update_shape(shape_context& c) {
  auto merged = c.input(0).merge(c.input(1));
  if (!merged.ok())
    return c.error("update of shape ", c.input(1).to_string(), " does not match variable of shape ",
                   c.input(0).to_string());
  c.set_output(0, *merged);
  return {};
}

// updates is indices.shape + ref.shape[1:] (one row per index), or a scalar for every row.
status scatter_shape(shape_context& c) {
  const partial_shape &ref = c.input(0), &indices = c.input(1), &updates = c.input(2);
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 1));
  const bool scalar = updates.rank_known() && updates.rank() == 0;
  if (!scalar && ref.rank_known() && indices.rank_known()) {
    std::vector<int64_t> expected = indices.dim_vector();
    for (int d = 1; d < ref.rank(); ++d) expected.push_back(ref.dim(d));
    const partial_shape want(expected);
    if (!updates.compatible_with(want))
      return c.error("updates of shape ", updates.to_string(), " must be a scalar or ",
                     want.to_string(), " (indices.shape ", indices.to_string(),
                     " + ref.shape[1:] of ref shape ", ref.to_string(), ")");
  }
  c.set_output(0, ref);
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("VariableV2").output("ref: Ref(dtype)").attr("shape: shape").attr("dtype: type")
    .attr("container: string = ''").attr("shared_name: string = ''").stateful().cheap()
    .set_shape_fn(variable_shape);
CAFLOW_REGISTER_OP("Assign").input("ref: Ref(T)").input("value: T").output("output_ref: Ref(T)")
    .attr("T: type").attr("validate_shape: bool = true").attr("use_locking: bool = true")
    .stateful().set_shape_fn(assign_shape);
CAFLOW_REGISTER_OP("AssignAdd").input("ref: Ref(T)").input("value: T").output("output_ref: Ref(T)")
    .attr("T: {float32, float64, int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(update_shape);
CAFLOW_REGISTER_OP("AssignSub").input("ref: Ref(T)").input("value: T").output("output_ref: Ref(T)")
    .attr("T: {float32, float64, int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(update_shape);
CAFLOW_REGISTER_OP("IsVariableInitialized").input("ref: Ref(dtype)").output("is_initialized: bool")
    .attr("dtype: type").stateful().cheap().set_shape_fn(shape_fns::scalar);

// TF's defaults: ScatterUpdate locks (its writes are not commutative), ScatterAdd/Sub do not.
CAFLOW_REGISTER_OP("ScatterUpdate").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: type")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = true").stateful()
    .set_shape_fn(scatter_shape);
CAFLOW_REGISTER_OP("ScatterAdd").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);
CAFLOW_REGISTER_OP("ScatterSub").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);

// ScatterMul, ScatterDiv, ScatterMin and ScatterMax (TF 1.x state ops): like ScatterAdd.
// ScatterDiv is registered for float types only: an integer division by zero would trap.
CAFLOW_REGISTER_OP("ScatterMul").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);
CAFLOW_REGISTER_OP("ScatterDiv").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);
CAFLOW_REGISTER_OP("ScatterMin").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);
CAFLOW_REGISTER_OP("ScatterMax").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_shape);

}  // namespace caflow
