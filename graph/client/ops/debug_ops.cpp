// Assert and Print: registrations, shape functions and client functions.
#include "graph/client/ops/debug_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status assert_shape(shape_context& c) { return c.require_rank(0, 0); }

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

}  // namespace ops
}  // namespace caflow
