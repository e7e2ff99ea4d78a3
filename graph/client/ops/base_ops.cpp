#include "graph/client/ops/base_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
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
