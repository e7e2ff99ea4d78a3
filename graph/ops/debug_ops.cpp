// Assert, Print, CheckNumerics, EnsureShape, PreventGradient, IdentityN, Snapshot and
// DebugStall: registrations and shape functions.
#include "graph/ir/op_def.hpp"
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

// caflow's own, for fault tests: when `stall` is true the kernel sleeps `seconds` without
// honouring cancellation, as a kernel stuck in a call would, then passes `stall` through.
CAFLOW_REGISTER_OP("DebugStall")
    .input("stall: bool")
    .output("output: bool")
    .attr("seconds: float")
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

}  // namespace caflow
