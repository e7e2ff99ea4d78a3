#include "graph/client/ops/math_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"

namespace caflow {
namespace ops {
namespace {

using ops_detail::unary;
using ops_detail::binary;

}  // namespace

output add(const scope& s, const output& x, const output& y) { return binary(s, "Add", x, y); }
output add_v2(const scope& s, const output& x, const output& y) {
  return binary(s, "AddV2", x, y);
}
output sub(const scope& s, const output& x, const output& y) { return binary(s, "Sub", x, y); }
output mul(const scope& s, const output& x, const output& y) { return binary(s, "Mul", x, y); }
output real_div(const scope& s, const output& x, const output& y) {
  return binary(s, "RealDiv", x, y);
}
output floor_div(const scope& s, const output& x, const output& y) {
  return binary(s, "FloorDiv", x, y);
}
output floor_mod(const scope& s, const output& x, const output& y) {
  return binary(s, "FloorMod", x, y);
}
output maximum(const scope& s, const output& x, const output& y) {
  return binary(s, "Maximum", x, y);
}
output minimum(const scope& s, const output& x, const output& y) {
  return binary(s, "Minimum", x, y);
}
output pow(const scope& s, const output& x, const output& y) { return binary(s, "Pow", x, y); }

output add_n(const scope& s, const std::vector<output>& inputs) {
  return node_builder(s, "AddN").input_list(inputs).finalize().out();
}

output neg(const scope& s, const output& x) { return unary(s, "Neg", x); }
output square(const scope& s, const output& x) { return unary(s, "Square", x); }
output sqrt(const scope& s, const output& x) { return unary(s, "Sqrt", x); }
output rsqrt(const scope& s, const output& x) { return unary(s, "Rsqrt", x); }
output exp(const scope& s, const output& x) { return unary(s, "Exp", x); }
output log(const scope& s, const output& x) { return unary(s, "Log", x); }
output abs(const scope& s, const output& x) { return unary(s, "Abs", x); }
output sign(const scope& s, const output& x) { return unary(s, "Sign", x); }
output reciprocal(const scope& s, const output& x) { return unary(s, "Reciprocal", x); }
output floor(const scope& s, const output& x) { return unary(s, "Floor", x); }

output equal(const scope& s, const output& x, const output& y, const equal_attrs& attrs) {
  return node_builder(s, "Equal").input(x).input(y)
      .attr("incompatible_shape_error", attrs.incompatible_shape_error).finalize().out();
}
output greater(const scope& s, const output& x, const output& y) {
  return binary(s, "Greater", x, y);
}
output less(const scope& s, const output& x, const output& y) { return binary(s, "Less", x, y); }

output select(const scope& s, const output& condition, const output& t, const output& e) {
  return node_builder(s, "Select").input(condition).input(t).input(e).finalize().out();
}

output select_v2(const scope& s, const output& condition, const output& t, const output& e) {
  return node_builder(s, "SelectV2").input(condition).input(t).input(e).finalize().out();
}

output cast(const scope& s, const output& x, dtype type, const cast_attrs& attrs) {
  return node_builder(s, "Cast").input(x).attr("DstT", type).attr("Truncate", attrs.truncate)
      .finalize().out();
}

}  // namespace ops
}  // namespace caflow
