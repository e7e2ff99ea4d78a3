// The element-wise binary math ops beyond math_ops.cpp's (Div, Mod, TruncateMod, TruncateDiv,
// SquaredDifference, DivNoNan, Xlogy, Xdivy, Atan2), the other comparisons and LogicalAnd/Or:
// registrations.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/math_op_util.hpp"

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

}  // namespace caflow
