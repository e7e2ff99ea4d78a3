// Gradients of Conv3D and its backprops (graph/client/ops/conv3d_ops.hpp), as TensorFlow's
// nn_grad.py defines them: the three are bilinear, so each one's gradient is made of the other
// two (and Conv3D), with the same attrs.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/conv3d_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status attrs_of(const grad_op_info& op, ops::conv3d_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &a->data_format));
  return op.get_attr("dilations", &a->dilations);
}

status conv3d_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  ops::conv3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &x = op.inputs[0], &w = op.inputs[1];
  *dx = {ops::conv3d_backprop_input(s, grad::shape_of(s, x), w, dy[0], a),
         ops::conv3d_backprop_filter(s, x, grad::shape_of(s, w), dy[0], a)};
  return {};
}

status backprop_input_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                           grad_list* dx) {
  ops::conv3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &w = op.inputs[1], &g = op.inputs[2];
  *dx = {output{}, ops::conv3d_backprop_filter(s, dz[0], grad::shape_of(s, w), g, a),
         ops::conv3d(s, dz[0], w, a)};
  return {};
}

status backprop_filter_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  ops::conv3d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &x = op.inputs[0], &g = op.inputs[2];
  *dx = {ops::conv3d_backprop_input(s, grad::shape_of(s, x), dz[0], g, a), output{},
         ops::conv3d(s, x, dz[0], a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Conv3D", conv3d_grad);
CAFLOW_REGISTER_GRADIENT("Conv3DBackpropInputV2", backprop_input_grad);
CAFLOW_REGISTER_GRADIENT("Conv3DBackpropFilterV2", backprop_filter_grad);

}  // namespace caflow
