// Gradients of BatchMatMul and BatchMatMulV2, as TF's math_grad.py: the four adjoint cases of
// MatMul's gradient, batched; for V2 each gradient is then summed over the batch dims its
// input was broadcast along and reshaped to the input's shape.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/math_batch_matmul_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/broadcast_reduction.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// g has the broadcast batch dims and x's matrix dims; sums it back to x's shape. `other` is
// the other operand of the product.
output unbroadcast_batch(const scope& s, const output& g, const output& x, const output& other) {
  const partial_shape sx = s.shape_of(x), so = s.shape_of(other);
  if (sx.fully_defined() && so.fully_defined()) {
    std::vector<int64_t> bx = sx.dim_vector(), bo = so.dim_vector();
    bx.resize(bx.size() - 2);
    bo.resize(bo.size() - 2);
    auto r = broadcast_gradient_reduction(bx, bo);
    if (r.ok()) {
      if (r->r0.empty() && bx.size() >= bo.size()) return g;
      const std::vector<int> axes(r->r0.begin(), r->r0.end());
      return ops::reshape(s, ops::sum(s, g, axes), sx.dim_vector());
    }
  }
  // Shapes known only at run time (or not broadcasting: the forward op has failed already).
  const output shape_x = ops::shape(s, x), shape_o = ops::shape(s, other);
  const output batch_x = ops::strided_slice(s, shape_x, {0}, {-2}, {1});
  const output batch_o = ops::strided_slice(s, shape_o, {0}, {-2}, {1});
  const auto r = ops::broadcast_gradient_args(s, batch_x, batch_o);
  return ops::reshape(s, ops::sum(s, g, r.r0), shape_x);
}

template <bool Broadcast>
status batch_mat_mul_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1], &g = dz[0];
  bool adj_x = false, adj_y = false;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("adj_x", &adj_x));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("adj_y", &adj_y));
  auto bmm = [&](const output& a, const output& b, bool aa, bool ab) {
    return Broadcast ? ops::batch_mat_mul_v2(s, a, b, {.adj_x = aa, .adj_y = ab})
                     : ops::batch_mat_mul(s, a, b, {.adj_x = aa, .adj_y = ab});
  };
  output gx, gy;
  if (!adj_x && !adj_y) {
    gx = bmm(g, y, false, true);
    gy = bmm(x, g, true, false);
  } else if (!adj_x && adj_y) {
    gx = bmm(g, y, false, false);
    gy = bmm(g, x, true, false);
  } else if (adj_x && !adj_y) {
    gx = bmm(y, g, false, true);
    gy = bmm(x, g, false, false);
  } else {
    gx = bmm(y, g, true, true);
    gy = bmm(g, x, true, true);
  }
  if constexpr (Broadcast) {
    gx = unbroadcast_batch(s, gx, x, y);
    gy = unbroadcast_batch(s, gy, y, x);
  }
  *dx = {gx, gy};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("BatchMatMulV2", batch_mat_mul_grad<true>);
CAFLOW_REGISTER_GRADIENT("BatchMatMul", batch_mat_mul_grad<false>);

}  // namespace caflow
