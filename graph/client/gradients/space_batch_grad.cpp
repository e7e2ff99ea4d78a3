// Gradients of SpaceToBatchND and BatchToSpaceND (graph/client/ops/space_batch_ops.hpp): each
// is the other's adjoint, as TensorFlow's array_grad.py has it.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/space_batch_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status space_to_batch_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                           grad_list* dx) {
  *dx = {ops::batch_to_space_nd(s, dy[0], op.inputs[1], op.inputs[2]), output{}, output{}};
  return {};
}

status batch_to_space_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                           grad_list* dx) {
  *dx = {ops::space_to_batch_nd(s, dy[0], op.inputs[1], op.inputs[2]), output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("SpaceToBatchND", space_to_batch_grad);
CAFLOW_REGISTER_GRADIENT("BatchToSpaceND", batch_to_space_grad);

}  // namespace caflow
