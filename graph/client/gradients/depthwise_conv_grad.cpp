// Gradients of DepthwiseConv2dNative and its backprops (graph/client/ops/depthwise_conv_ops.hpp),
// as TensorFlow's nn_grad.py defines them: the three ops are bilinear, so each one's gradient is
// made of the other two (and the forward op), with the same attrs.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/depthwise_conv_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status depthwise_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                      grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &x = op.inputs[0], &w = op.inputs[1];
  *dx = {ops::depthwise_conv2d_native_backprop_input(s, grad::shape_of(s, x), w, dy[0], a),
         ops::depthwise_conv2d_native_backprop_filter(s, x, grad::shape_of(s, w), dy[0], a)};
  return {};
}

// z = BackpropInput(sizes, w, g), linear in w and g: dw = BackpropFilter(dz, shape(w), g),
// dg = DepthwiseConv2dNative(dz, w).
status depthwise_backprop_input_grad(const scope& s, const grad_op_info& op,
                                     const grad_list& dz, grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &w = op.inputs[1], &g = op.inputs[2];
  *dx = {output{},
         ops::depthwise_conv2d_native_backprop_filter(s, dz[0], grad::shape_of(s, w), g, a),
         ops::depthwise_conv2d_native(s, dz[0], w, a)};
  return {};
}

// z = BackpropFilter(x, sizes, g), linear in x and g: dx = BackpropInput(shape(x), dz, g),
// dg = DepthwiseConv2dNative(x, dz).
status depthwise_backprop_filter_grad(const scope& s, const grad_op_info& op,
                                      const grad_list& dz, grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &x = op.inputs[0], &g = op.inputs[2];
  *dx = {ops::depthwise_conv2d_native_backprop_input(s, grad::shape_of(s, x), dz[0], g, a),
         output{}, ops::depthwise_conv2d_native(s, x, dz[0], a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNative", depthwise_grad);
CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropInput", depthwise_backprop_input_grad);
CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropFilter", depthwise_backprop_filter_grad);

}  // namespace caflow
