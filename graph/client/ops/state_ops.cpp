#include "graph/client/ops/state_ops.hpp"

#include "graph/client/node_builder.hpp"
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

namespace ops {

output variable(const scope& s, const partial_shape& shape, dtype type, const variable_attrs& attrs) {
  return node_builder(s, "VariableV2", "Variable").attr("shape", shape).attr("dtype", type)
      .attr("container", attrs.container).attr("shared_name", attrs.shared_name).finalize().out();
}

output assign(const scope& s, const output& ref, const output& value, const assign_attrs& attrs) {
  return node_builder(s, "Assign").input(ref).input(value)
      .attr("validate_shape", attrs.validate_shape).attr("use_locking", attrs.use_locking)
      .finalize().out();
}

output assign_add(const scope& s, const output& ref, const output& value) {
  return node_builder(s, "AssignAdd").input(ref).input(value).finalize().out();
}

output assign_sub(const scope& s, const output& ref, const output& value) {
  return node_builder(s, "AssignSub").input(ref).input(value).finalize().out();
}

output is_variable_initialized(const scope& s, const output& ref) {
  return node_builder(s, "IsVariableInitialized").input(ref).attr("dtype", ref.type).finalize().out();
}

}  // namespace ops
}  // namespace caflow
