// Gradients of PadV2, MirrorPad and MirrorPadGrad (graph/client/ops/padding_ops.hpp), as
// TensorFlow's array_grad.py defines them. The paddings and the constant get no gradient.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/padding_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// PadV2's input gets what Pad's would: the middle of the gradient.
status pad_v2_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const gradient_fn* pad = gradient_registry::global().lookup("Pad");
  if (pad == nullptr) return errors::internal("Pad has no gradient function");
  CAFLOW_RETURN_IF_ERROR((*pad)(s, op, dy, dx));
  dx->resize(3);
  return {};
}

status mirror_pad_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  std::string mode;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("mode", &mode));
  *dx = {ops::mirror_pad_grad(s, dy[0], op.inputs[1], mode), output{}};
  return {};
}

// MirrorPadGrad is linear, and its adjoint is MirrorPad.
status mirror_pad_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                            grad_list* dx) {
  std::string mode;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("mode", &mode));
  *dx = {ops::mirror_pad(s, dy[0], op.inputs[1], mode), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("PadV2", pad_v2_grad);
CAFLOW_REGISTER_GRADIENT("MirrorPad", mirror_pad_grad);
CAFLOW_REGISTER_GRADIENT("MirrorPadGrad", mirror_pad_grad_grad);

}  // namespace caflow
