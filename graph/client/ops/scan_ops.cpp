#include "graph/client/ops/scan_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {
namespace {

output scan(const char* op, const scope& s, const output& x, const output& axis,
            const cumulative_attrs& attrs) {
  return node_builder(s, op)
      .input(x)
      .input(axis)
      .attr("exclusive", attrs.exclusive)
      .attr("reverse", attrs.reverse)
      .finalize()
      .out();
}

// The axis Const must not take a name asked for with with_op_name: that is the scan's.
output axis_const(const scope& s, int axis) {
  return constant(s.new_sub_scope(""), tensor::scalar<int32_t>(axis));
}

}  // namespace

output cumsum(const scope& s, const output& x, const output& axis, const cumulative_attrs& attrs) {
  return scan("Cumsum", s, x, axis, attrs);
}
output cumsum(const scope& s, const output& x, int axis, const cumulative_attrs& attrs) {
  return scan("Cumsum", s, x, axis_const(s, axis), attrs);
}
output cumprod(const scope& s, const output& x, const output& axis, const cumulative_attrs& attrs) {
  return scan("Cumprod", s, x, axis, attrs);
}
output cumprod(const scope& s, const output& x, int axis, const cumulative_attrs& attrs) {
  return scan("Cumprod", s, x, axis_const(s, axis), attrs);
}

}  // namespace ops
}  // namespace caflow
