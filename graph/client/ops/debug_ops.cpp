// Assert, Print, CheckNumerics, EnsureShape, PreventGradient, IdentityN and Snapshot: client
// functions (registered in graph/ops/debug_ops.cpp).
#include "graph/client/ops/debug_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
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

output debug_stall(const scope& s, const output& stall, float seconds) {
  return node_builder(s, "DebugStall").input(stall).attr("seconds", seconds).finalize().out();
}

output snapshot(const scope& s, const output& input) {
  return node_builder(s, "Snapshot").input(input).finalize().out();
}

}  // namespace ops
}  // namespace caflow
