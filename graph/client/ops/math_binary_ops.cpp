#include "graph/client/ops/math_binary_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"

namespace caflow {
namespace ops {
namespace {

using ops_detail::binary;

}  // namespace

output div(const scope& s, const output& x, const output& y) { return binary(s, "Div", x, y); }
output mod(const scope& s, const output& x, const output& y) { return binary(s, "Mod", x, y); }
output truncate_mod(const scope& s, const output& x, const output& y) {
  return binary(s, "TruncateMod", x, y);
}
output truncate_div(const scope& s, const output& x, const output& y) {
  return binary(s, "TruncateDiv", x, y);
}
output squared_difference(const scope& s, const output& x, const output& y) {
  return binary(s, "SquaredDifference", x, y);
}
output atan2(const scope& s, const output& y, const output& x) {
  return binary(s, "Atan2", y, x);
}
output div_no_nan(const scope& s, const output& x, const output& y) {
  return binary(s, "DivNoNan", x, y);
}
output xlogy(const scope& s, const output& x, const output& y) {
  return binary(s, "Xlogy", x, y);
}
output xdivy(const scope& s, const output& x, const output& y) {
  return binary(s, "Xdivy", x, y);
}
output not_equal(const scope& s, const output& x, const output& y, const equal_attrs& attrs) {
  return node_builder(s, "NotEqual").input(x).input(y)
      .attr("incompatible_shape_error", attrs.incompatible_shape_error).finalize().out();
}
output greater_equal(const scope& s, const output& x, const output& y) {
  return binary(s, "GreaterEqual", x, y);
}
output less_equal(const scope& s, const output& x, const output& y) {
  return binary(s, "LessEqual", x, y);
}
output logical_and(const scope& s, const output& x, const output& y) {
  return binary(s, "LogicalAnd", x, y);
}
output logical_or(const scope& s, const output& x, const output& y) {
  return binary(s, "LogicalOr", x, y);
}

}  // namespace ops
}  // namespace caflow
