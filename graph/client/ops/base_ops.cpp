#include "graph/client/ops/base_ops.hpp"

#include "graph/client/node_builder.hpp"
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

namespace ops {

output constant(const scope& s, const tensor& value) {
  return node_builder(s, "Const").attr("value", value).attr("dtype", value.type()).finalize().out();
}

output placeholder(const scope& s, dtype type, const placeholder_attrs& attrs) {
  return node_builder(s, "Placeholder").attr("dtype", type).attr("shape", attrs.shape)
      .finalize().out();
}

output placeholder_with_default(const scope& s, const output& input, const partial_shape& shape) {
  return node_builder(s, "PlaceholderWithDefault").input(input).attr("dtype", input.type)
      .attr("shape", shape).finalize().out();
}

output identity(const scope& s, const output& input) {
  return node_builder(s, "Identity").input(input).finalize().out();
}

operation no_op(const scope& s) { return node_builder(s, "NoOp").finalize(); }

operation group(const scope& s, const std::vector<operation>& ops) {
  node_builder b(s, "NoOp", "group");
  for (const auto& op : ops) b.control_input(op);
  return b.finalize();
}

}  // namespace ops
}  // namespace caflow
