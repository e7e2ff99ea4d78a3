// Gradients of GatherNd and ScatterNd (graph/client/ops/nd_index_ops.hpp), as TensorFlow's
// array_grad.py defines them: each is the other's adjoint; indices and shapes get none.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/nd_index_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status gather_nd_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                      grad_list* dx) {
  const output& indices = op.inputs[1];
  *dx = {ops::scatter_nd(s, indices, dy[0], grad::shape_of(s, op.inputs[0], indices.type)),
         output{}};
  return {};
}

status scatter_nd_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  *dx = {output{}, ops::gather_nd(s, dy[0], op.inputs[0]), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("GatherNd", gather_nd_grad);
CAFLOW_REGISTER_GRADIENT("ScatterNd", scatter_nd_grad);

}  // namespace caflow
