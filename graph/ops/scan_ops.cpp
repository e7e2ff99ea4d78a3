// The cumulative ops Cumsum and Cumprod: registrations and shape function.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

// The output has x's shape; an axis known at graph construction is checked against x's rank.
status scan_shape(shape_context& c) {
  const partial_shape& axis = c.input(1);
  if (axis.rank_known() && axis.rank() != 0)
    return c.error("axis must be a scalar, got shape ", axis.to_string());
  const partial_shape& x = c.input(0);
  if (x.rank_known() && x.rank() == 0) return c.error("x must have rank at least 1, got a scalar");
  if (const tensor* a = c.input_value(1); a && x.rank_known()) {
    auto checked = canonical_axis(index_values(*a)[0], x.rank(), "axis");
    if (!checked.ok()) return checked.get_status().with_context(describe_node(c.node()));
  }
  c.set_output(0, x);
  return {};
}

}  // namespace

#define CAFLOW_REGISTER_SCAN_OP(name)              \
  CAFLOW_REGISTER_OP(name)                         \
      .input("x: T")                               \
      .input("axis: Tidx")                         \
      .output("out: T")                            \
      .attr("exclusive: bool = false")             \
      .attr("reverse: bool = false")               \
      .attr("T: {float32, float64, int32, int64}") \
      .attr("Tidx: {int32, int64} = int32")        \
      .set_shape_fn(scan_shape)
CAFLOW_REGISTER_SCAN_OP("Cumsum");
CAFLOW_REGISTER_SCAN_OP("Cumprod");
#undef CAFLOW_REGISTER_SCAN_OP

}  // namespace caflow
