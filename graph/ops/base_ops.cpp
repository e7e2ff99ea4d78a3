// Const, Placeholder, PlaceholderWithDefault, Identity, NoOp and the call-frame ops _Arg and
// _Retval: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status const_shape(shape_context& c) {
  tensor value;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("value", &value));
  dtype type;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &type));
  if (value.type() != type)
    return c.error("value is ", dtype_name(value.type()), " but dtype is ", dtype_name(type));
  c.set_output(0, value.shape());
  return {};
}

status placeholder_shape(shape_context& c) {
  partial_shape s;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape", &s));
  c.set_output(0, s);
  return {};
}

status placeholder_with_default_shape(shape_context& c) {
  partial_shape s;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape", &s));
  if (!s.compatible_with(c.input(0)))
    return c.error("default value of shape ", c.input(0).to_string(),
                   " does not match the declared shape ", s.to_string());
  c.set_output(0, s);
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Const").output("output: dtype").attr("value: tensor").attr("dtype: type")
    .cheap().constant_value("value").set_shape_fn(const_shape);
CAFLOW_REGISTER_OP("Placeholder").output("output: dtype").attr("dtype: type")
    .attr("shape: shape = unknown").cheap().set_shape_fn(placeholder_shape);
CAFLOW_REGISTER_OP("PlaceholderWithDefault").input("input: dtype").output("output: dtype")
    .attr("dtype: type").attr("shape: shape").cheap().set_shape_fn(placeholder_with_default_shape);
CAFLOW_REGISTER_OP("Identity").input("input: T").output("output: T").attr("T: type").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("NoOp").cheap();
// A step's feeds and fetches, bound by the session's call frame.
CAFLOW_REGISTER_OP("_Arg").output("output: T").attr("T: type").attr("index: int >= 0").cheap()
    .stateful();
CAFLOW_REGISTER_OP("_Retval").input("input: T").attr("T: type").attr("index: int >= 0").cheap()
    .stateful();

}  // namespace caflow
