// The basic element-wise math ops (Add, Sub, Mul, ..., Neg, Square, ...), AddN, Equal, Greater,
// Less, Select, SelectV2 and Cast: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/math_op_util.hpp"

namespace caflow {

status ops_detail::equality_shape(shape_context& c) {
  bool shape_error = true;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("incompatible_shape_error", &shape_error));
  if (shape_error) return shape_fns::broadcast_binary(c);
  auto s = broadcast_shapes(c.input(0), c.input(1));
  c.set_output(0, s.ok() ? *s : partial_shape::unknown());
  return {};
}
namespace {

using ops_detail::equality_shape;

// TF1 Select: condition is a scalar, has t's shape, or is a vector of t's first dimension.
status select_shape(shape_context& c) {
  auto merged = c.input(1).merge(c.input(2));
  if (!merged.ok())
    return c.error("'t' and 'e' must have the same shape: ", merged.get_status().message());
  partial_shape data = *merged;
  const partial_shape& cond = c.input(0);
  if (!cond.rank_known() || !data.rank_known() || cond.rank() == 0) {
    c.set_output(0, data);
    return {};
  }
  if (cond.rank() == 1 && data.rank() >= 1) {
    if (cond.dim(0) >= 0 && data.dim(0) >= 0 && cond.dim(0) != data.dim(0))
      return c.error("condition of shape ", cond.to_string(),
                     " must have as many elements as the first dimension of 't' of shape ",
                     data.to_string());
    if (data.dim(0) < 0 && cond.dim(0) >= 0) {
      std::vector<int64_t> dims = data.dim_vector();
      dims[0] = cond.dim(0);
      data = partial_shape(dims);
    }
    c.set_output(0, data);
    return {};
  }
  auto same = data.merge(cond);
  if (!same.ok())
    return c.error("condition of shape ", cond.to_string(),
                   " must be a scalar, a vector, or have the shape of 't' ", data.to_string());
  c.set_output(0, *same);
  return {};
}

// SelectV2 (TF >= 1.15, tf.where in TF 2): condition, t and e broadcast together.
status select_v2_shape(shape_context& c) {
  auto te = broadcast_shapes(c.input(1), c.input(2));
  if (!te.ok())
    return c.error("'t' of shape ", c.input(1).to_string(), " and 'e' of shape ",
                   c.input(2).to_string(), " must broadcast: ", te.get_status().message());
  auto all = broadcast_shapes(c.input(0), *te);
  if (!all.ok())
    return c.error("condition of shape ", c.input(0).to_string(), " must broadcast with 't' and ",
                   "'e' (", te->to_string(), "): ", all.get_status().message());
  c.set_output(0, *all);
  return {};
}

}  // namespace

// Type lists are TensorFlow's, restricted to caflow's dtypes. Kernels exist for the dtypes
// listed in kernels/cpu/cwise_*.cpp; another allowed dtype fails at kernel lookup, naming it.
#define CAFLOW_BINARY_OP(name, types)                                                 \
  CAFLOW_REGISTER_OP(name).input("x: T").input("y: T").output("z: T").attr("T: " types) \
      .cheap()

CAFLOW_BINARY_OP("Add", "{float32, float64, uint8, int32, int64}").commutative()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("AddV2", "{float32, float64, uint8, int32, int64}").commutative()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("Sub", "{float32, float64, uint8, int32, int64}")
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("Mul", "{float32, float64, uint8, int32, int64}").commutative()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("RealDiv", "{float32, float64, uint8, int32, int64}")
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("Maximum", "{float32, float64, uint8, int32, int64}").commutative()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("Minimum", "{float32, float64, uint8, int32, int64}").commutative()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("Pow", "{float32, float64, int32, int64}")
    .set_shape_fn(shape_fns::broadcast_binary);
// Rounding toward negative infinity, as Python's // and %: FloorDiv(-7, 2) = -4 and
// FloorMod(-7, 2) = 1 (the remainder takes the divisor's sign). An integer divisor of zero
// fails the step.
CAFLOW_BINARY_OP("FloorDiv", "{float32, float64, int32, int64}")
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_BINARY_OP("FloorMod", "{float32, float64, int32, int64}")
    .set_shape_fn(shape_fns::broadcast_binary);
#undef CAFLOW_BINARY_OP

CAFLOW_REGISTER_OP("AddN").input("inputs: N * T").output("sum: T").attr("N: int >= 1")
    .attr("T: {float32, float64, uint8, int32, int64}").commutative().cheap()
    .set_shape_fn(shape_fns::merge_all_inputs);

#define CAFLOW_UNARY_OP(name, types)                                                     \
  CAFLOW_REGISTER_OP(name).input("x: T").output("y: T").attr("T: " types).cheap()       \
      .set_shape_fn(shape_fns::unchanged)

CAFLOW_UNARY_OP("Neg", "{float32, float64, int32, int64}");
CAFLOW_UNARY_OP("Square", "{float32, float64, int32, int64}");
CAFLOW_UNARY_OP("Sqrt", "{float32, float64}");
CAFLOW_UNARY_OP("Rsqrt", "{float32, float64}");
CAFLOW_UNARY_OP("Exp", "{float32, float64}");
CAFLOW_UNARY_OP("Log", "{float32, float64}");
CAFLOW_UNARY_OP("Abs", "{float32, float64, int32, int64}");
CAFLOW_UNARY_OP("Sign", "{float32, float64, int32, int64}");
CAFLOW_UNARY_OP("Reciprocal", "{float32, float64, int32, int64}");
CAFLOW_UNARY_OP("Floor", "{float32, float64}");
#undef CAFLOW_UNARY_OP

CAFLOW_REGISTER_OP("Equal").input("x: T").input("y: T").output("z: bool").attr("T: type")
    .attr("incompatible_shape_error: bool = true").commutative().cheap()
    .set_shape_fn(equality_shape);
CAFLOW_REGISTER_OP("Greater").input("x: T").input("y: T").output("z: bool")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::broadcast_binary);
CAFLOW_REGISTER_OP("Less").input("x: T").input("y: T").output("z: bool")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::broadcast_binary);

CAFLOW_REGISTER_OP("Select").input("condition: bool").input("t: T").input("e: T")
    .output("output: T").attr("T: type").cheap().set_shape_fn(select_shape);

CAFLOW_REGISTER_OP("SelectV2").input("condition: bool").input("t: T").input("e: T")
    .output("output: T").attr("T: type").cheap().set_shape_fn(select_v2_shape);

CAFLOW_REGISTER_OP("Cast").input("x: SrcT").output("y: DstT").attr("SrcT: type")
    .attr("DstT: type").attr("Truncate: bool = false").cheap()
    .set_shape_fn(shape_fns::unchanged);

}  // namespace caflow
