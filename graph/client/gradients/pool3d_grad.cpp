// Gradients of the 3-D pooling ops (graph/client/ops/pool3d_ops.hpp), as TensorFlow's
// nn_grad.py defines them.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/pool3d_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status attrs_of(const grad_op_info& op, ops::pool3d_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("ksize", &a->ksize));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  return op.get_attr("data_format", &a->data_format);
}

status max_pool3d_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  ops::pool3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::max_pool3d_grad(s, op.inputs[0], op.outputs[0], dy[0], a)};
  return {};
}

status avg_pool3d_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  ops::pool3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::avg_pool3d_grad(s, grad::shape_of(s, op.inputs[0]), dy[0], a)};
  return {};
}

// AvgPool3DGrad is linear in grad with AvgPool3D as its adjoint.
status avg_pool3d_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  ops::pool3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {output{}, ops::avg_pool3d(s, dz[0], a)};
  return {};
}

// MaxPool3DGrad and MaxPool3DGradGrad are linear in grad and each other's adjoints; the
// original input and output only pick the maxima: zeros, as in TF.
status max_pool3d_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  ops::pool3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::zeros_like(s, op.inputs[0]), ops::zeros_like(s, op.inputs[1]),
         ops::max_pool3d_grad_grad(s, op.inputs[0], op.inputs[1], dz[0], a)};
  return {};
}

status max_pool3d_grad_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                                 grad_list* dx) {
  ops::pool3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::zeros_like(s, op.inputs[0]), ops::zeros_like(s, op.inputs[1]),
         ops::max_pool3d_grad(s, op.inputs[0], op.inputs[1], dz[0], a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("MaxPool3D", max_pool3d_grad);
CAFLOW_REGISTER_GRADIENT("AvgPool3D", avg_pool3d_grad);
CAFLOW_REGISTER_GRADIENT("AvgPool3DGrad", avg_pool3d_grad_grad);
CAFLOW_REGISTER_GRADIENT("MaxPool3DGrad", max_pool3d_grad_grad);
CAFLOW_REGISTER_GRADIENT("MaxPool3DGradGrad", max_pool3d_grad_grad_grad);

}  // namespace caflow
