// Gradients of SpaceToBatchND and BatchToSpaceND, SpaceToDepth and DepthToSpace
// (graph/client/ops/space_batch_ops.hpp): each is its partner's adjoint, as TensorFlow's
// array_grad.py has it.
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

// SpaceToDepth and DepthToSpace only move elements: each is the other's inverse and adjoint.
template <bool to_depth>
status depth_space_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                        grad_list* dx) {
  int64_t b = 0;
  ops::depth_space_attrs a;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("block_size", &b));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &a.data_format));
  *dx = {to_depth ? ops::depth_to_space(s, dy[0], b, a) : ops::space_to_depth(s, dy[0], b, a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("SpaceToDepth", depth_space_grad<true>);
CAFLOW_REGISTER_GRADIENT("DepthToSpace", depth_space_grad<false>);
CAFLOW_REGISTER_GRADIENT("SpaceToBatchND", space_to_batch_grad);
CAFLOW_REGISTER_GRADIENT("BatchToSpaceND", batch_to_space_grad);

}  // namespace caflow
