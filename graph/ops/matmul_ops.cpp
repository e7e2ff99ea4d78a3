// MatMul and _FusedMatMul: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/fused_op_shapes.hpp"

namespace caflow {
namespace {

status mat_mul_shape(shape_context& c) {
  bool transpose_a = false, transpose_b = false;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("transpose_a", &transpose_a));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("transpose_b", &transpose_b));
  const partial_shape& a = c.input(0);
  const partial_shape& b = c.input(1);
  for (int i = 0; i < 2; ++i) {
    if (c.input(i).rank_known() && c.input(i).rank() != 2)
      return c.error("In[", i, "] is not a matrix. Instead it has shape ", c.input(i).to_string());
  }
  int64_t m = -1, k_a = -1, k_b = -1, n = -1;
  if (a.rank_known()) {
    m = a.dim(transpose_a ? 1 : 0);
    k_a = a.dim(transpose_a ? 0 : 1);
  }
  if (b.rank_known()) {
    k_b = b.dim(transpose_b ? 1 : 0);
    n = b.dim(transpose_b ? 0 : 1);
  }
  if (k_a >= 0 && k_b >= 0 && k_a != k_b)
    return c.error("matrix size-incompatible: In[0]: ", a.to_string(), ", In[1]: ", b.to_string(),
                   ", transpose_a=", transpose_a, ", transpose_b=", transpose_b);
  c.set_output(0, partial_shape{m, n});
  return {};
}

// MatMul's product, then the fused ops' args checked against its columns.
status fused_mat_mul_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(mat_mul_shape(c));
  return ops_detail::check_fused_args(c, /*batch_norm_allowed=*/false, 2,
                                      c.outputs()[0].dim(1));
}

}  // namespace

CAFLOW_REGISTER_OP("MatMul")
    .input("a: T")
    .input("b: T")
    .output("product: T")
    .attr("transpose_a: bool = false")
    .attr("transpose_b: bool = false")
    .attr("T: {float32, float64, int32, int64}")
    .set_shape_fn(mat_mul_shape);

// Grappler's remapper and the TF.js converter fuse a BiasAdd and an activation into the
// product (graph/util/fused_op_spec.hpp; no FusedBatchNorm here, as in TensorFlow).
CAFLOW_REGISTER_OP("_FusedMatMul")
    .input("a: T")
    .input("b: T")
    .input("args: num_args * T")
    .output("product: T")
    .attr("transpose_a: bool = false")
    .attr("transpose_b: bool = false")
    .attr("T: {float32, float64}")
    .attr("num_args: int >= 0")
    .attr("fused_ops: list(string) = []")
    .attr("epsilon: float = 0.0001")
    .attr("leakyrelu_alpha: float = 0.2")
    .set_shape_fn(fused_mat_mul_shape);

}  // namespace caflow
