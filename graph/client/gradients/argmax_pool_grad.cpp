// Gradients of MaxPoolWithArgmax and its gradient ops (graph/client/ops/argmax_pool_ops.hpp),
// as TensorFlow's nn_grad.py defines them: the two gradient ops are linear in grad and each
// other's adjoints; the input only picks the maxima (zeros) and argmax gets none.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/argmax_pool_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status attrs_of(const grad_op_info& op, ops::argmax_pool_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("ksize", &a->ksize));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("Targmax", &a->targmax));
  return op.get_attr("include_batch_in_index", &a->include_batch_in_index);
}

status with_argmax_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                        grad_list* dx) {
  ops::argmax_pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::max_pool_grad_with_argmax(s, op.inputs[0], dy[0], op.outputs[1], a)};
  return {};
}

template <bool from_grad_grad>
status grad_with_argmax_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                             grad_list* dx) {
  ops::argmax_pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output adjoint =
      from_grad_grad ? ops::max_pool_grad_with_argmax(s, op.inputs[0], dz[0], op.inputs[2], a)
                     : ops::max_pool_grad_grad_with_argmax(s, op.inputs[0], dz[0], op.inputs[2], a);
  *dx = {ops::zeros_like(s, op.inputs[0]), adjoint, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("MaxPoolWithArgmax", with_argmax_grad);
CAFLOW_REGISTER_GRADIENT("MaxPoolGradWithArgmax", grad_with_argmax_grad<false>);
CAFLOW_REGISTER_GRADIENT("MaxPoolGradGradWithArgmax", grad_with_argmax_grad<true>);

}  // namespace caflow
