// Assert, Print, CheckNumerics, EnsureShape, PreventGradient, IdentityN and Snapshot:
// registrations, shape functions and client functions.
#include "graph/client/ops/debug_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status assert_shape(shape_context& c) { return c.require_rank(0, 0); }

status ensure_shape_shape(shape_context& c) {
  partial_shape shape;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape", &shape));
  auto merged = c.input(0).merge(shape);
  if (!merged.ok())
    return c.error("input has shape ", c.input(0).to_string(), ", incompatible with shape ",
                   shape.to_string());
  c.set_output(0, *merged);
  return {};
}

status identity_n_shape(shape_context& c) {
  for (int i = 0; i < c.num_inputs(); ++i) c.set_output(i, c.input(i));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Assert")
    .input("condition: bool")
    .input("data: T")
    .attr("T: list(type)")
    .attr("summarize: int = 3")
    .stateful()
    .set_shape_fn(assert_shape);
CAFLOW_REGISTER_OP("Print")
    .input("input: T")
    .input("data: U")
    .output("output: T")
    .attr("T: type")
    .attr("U: list(type)")
    .attr("message: string = ''")
    .attr("first_n: int = -1")
    .attr("summarize: int = 3")
    .stateful()
    .set_shape_fn(shape_fns::unchanged);

CAFLOW_REGISTER_OP("CheckNumerics")
    .input("tensor: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .attr("message: string")
    .stateful()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("EnsureShape")
    .input("input: T")
    .output("output: T")
    .attr("shape: shape")
    .attr("T: type")
    .set_shape_fn(ensure_shape_shape);
CAFLOW_REGISTER_OP("PreventGradient")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .attr("message: string = ''")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("IdentityN")
    .input("input: T")
    .output("output: T")
    .attr("T: list(type)")
    .set_shape_fn(identity_n_shape);
CAFLOW_REGISTER_OP("Snapshot")
    .input("input: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(shape_fns::unchanged);

namespace ops {

operation assert_that(const scope& s, const output& condition, const std::vector<output>& data,
                      const assert_attrs& attrs) {
  return node_builder(s, "Assert").input(condition).input_list(data)
      .attr("summarize", attrs.summarize).finalize();
}

output print(const scope& s, const output& input, const std::vector<output>& data,
             const print_attrs& attrs) {
  return node_builder(s, "Print").input(input).input_list(data).attr("message", attrs.message)
      .attr("first_n", attrs.first_n).attr("summarize", attrs.summarize).finalize().out();
}

output check_numerics(const scope& s, const output& tensor, const std::string& message) {
  return node_builder(s, "CheckNumerics").input(tensor).attr("message", message).finalize().out();
}

output ensure_shape(const scope& s, const output& input, const partial_shape& shape) {
  return node_builder(s, "EnsureShape").input(input).attr("shape", shape).finalize().out();
}

output prevent_gradient(const scope& s, const output& input, const std::string& message) {
  return node_builder(s, "PreventGradient").input(input).attr("message", message).finalize()
      .out();
}

std::vector<output> identity_n(const scope& s, const std::vector<output>& inputs) {
  const operation op = node_builder(s, "IdentityN").input_list(inputs).finalize();
  std::vector<output> outs;
  for (size_t i = 0; i < inputs.size(); ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

output snapshot(const scope& s, const output& input) {
  return node_builder(s, "Snapshot").input(input).finalize().out();
}

}  // namespace ops
}  // namespace caflow
