#include "graph/client/ops/math_binary_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/op_builders.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

// TF's type lists restricted to caflow's dtypes; the CPU kernels cover exactly these.
#define CAFLOW_BINARY_MATH_OP(name, types)                                               \
  CAFLOW_REGISTER_OP(name).input("x: T").input("y: T").output("z: T").attr("T: " types) \
      .cheap().set_shape_fn(shape_fns::broadcast_binary)
// TF's legacy Div: x / y, truncating toward zero for integers (RealDiv is the float-only one).
CAFLOW_BINARY_MATH_OP("Div", "{float32, float64, uint8, int32, int64}");
CAFLOW_BINARY_MATH_OP("Mod", "{float32, float64, int32, int64}");
CAFLOW_BINARY_MATH_OP("TruncateMod", "{float32, float64, int32, int64}");
CAFLOW_BINARY_MATH_OP("TruncateDiv", "{uint8, int32, int64}");
CAFLOW_BINARY_MATH_OP("SquaredDifference", "{float32, float64, int32, int64}").commutative();
CAFLOW_BINARY_MATH_OP("DivNoNan", "{float32, float64}");
CAFLOW_BINARY_MATH_OP("Xlogy", "{float32, float64}");
CAFLOW_BINARY_MATH_OP("Xdivy", "{float32, float64}");
#undef CAFLOW_BINARY_MATH_OP
CAFLOW_REGISTER_OP("Atan2").input("y: T").input("x: T").output("z: T")
    .attr("T: {float32, float64}").cheap().set_shape_fn(shape_fns::broadcast_binary);

CAFLOW_REGISTER_OP("NotEqual").input("x: T").input("y: T").output("z: bool").attr("T: type")
    .attr("incompatible_shape_error: bool = true").commutative().cheap()
    .set_shape_fn(ops_detail::equality_shape);
CAFLOW_REGISTER_OP("GreaterEqual").input("x: T").input("y: T").output("z: bool")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_REGISTER_OP("LessEqual").input("x: T").input("y: T").output("z: bool")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_REGISTER_OP("LogicalAnd").input("x: bool").input("y: bool").output("z: bool")
    .commutative().cheap().set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_REGISTER_OP("LogicalOr").input("x: bool").input("y: bool").output("z: bool")
    .commutative().cheap().set_shape_fn(shape_fns::broadcast_binary);

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
