// ReverseV2 and BroadcastTo: registrations, shape functions and client functions.
#include "graph/client/ops/reverse_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/reverse_broadcast_rules.hpp"

namespace caflow {
namespace {

status reverse_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& x = c.input(0);
  if (const tensor* axis = c.input_value(1); axis && x.rank_known()) {
    auto dims = reverse_dims(index_values(*axis), x.rank());
    if (!dims.ok()) return c.error(dims.get_status().message());
  }
  c.set_output(0, x);
  return {};
}

status broadcast_to_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const tensor* shape_t = c.input_value(1);
  if (!shape_t) {
    const int64_t n = array_op_util::vector_length(c, 1);
    if (n > max_rank) return c.error("shape has ", n, " entries, above the maximum rank");
    c.set_output(0, n < 0 ? partial_shape::unknown()
                          : partial_shape::unknown_of_rank(static_cast<int>(n)));
    return {};
  }
  const std::vector<int64_t> target = index_values(*shape_t);
  if (target.size() > static_cast<size_t>(max_rank))
    return c.error("shape ", format_dims(target), " has more than ", max_rank, " dimensions");
  if (status st = check_broadcast_to(c.input(0), target); !st.ok()) return c.error(st.message());
  c.set_output(0, partial_shape(target));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("ReverseV2")
    .input("tensor: T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("Tidx: {int32, int64} = int32")
    .attr("T: type")
    .set_shape_fn(reverse_shape);
CAFLOW_REGISTER_OP("BroadcastTo")
    .input("input: T")
    .input("shape: Tidx")
    .output("output: T")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = int32")
    .set_shape_fn(broadcast_to_shape);

namespace ops {

output reverse(const scope& s, const output& tensor, const output& axis) {
  return node_builder(s, "ReverseV2").input(tensor).input(axis).finalize().out();
}
output reverse(const scope& s, const output& tensor, const std::vector<int64_t>& axis) {
  return reverse(s, tensor, array_op_util::index_vector(s, axis));
}

output broadcast_to(const scope& s, const output& input, const output& shape) {
  return node_builder(s, "BroadcastTo").input(input).input(shape).finalize().out();
}
output broadcast_to(const scope& s, const output& input, const std::vector<int64_t>& shape) {
  return broadcast_to(s, input, array_op_util::index_vector(s, shape));
}

}  // namespace ops
}  // namespace caflow
