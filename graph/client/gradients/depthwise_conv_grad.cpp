// Gradients of DepthwiseConv2dNative and its backprops (graph/client/ops/depthwise_conv_ops.hpp),
// as TensorFlow's nn_grad.py defines them: the three ops are bilinear, so each one's gradient is
// made of the other two (and the forward op), with the same attrs.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/depthwise_conv_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// x's shape as an int32 vector: a Const when known, so the backprops' shapes are known too.
output shape_vector(const scope& s, const output& x) {
  const partial_shape known = s.shape_of(x);
  if (!known.fully_defined()) return ops::shape(s, x);
  std::vector<int32_t> dims;
  for (int64_t d : known.dim_vector()) dims.push_back(static_cast<int32_t>(d));
  return ops::constant(s, tensor::from_vector<int32_t>(dims));
}

status attrs_of(const grad_op_info& op, ops::conv2d_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &a->data_format));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("dilations", &a->dilations));
  return op.get_attr("explicit_paddings", &a->explicit_paddings);
}

status depthwise_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                      grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &x = op.inputs[0], &w = op.inputs[1];
  *dx = {ops::depthwise_conv2d_native_backprop_input(s, shape_vector(s, x), w, dy[0], a),
         ops::depthwise_conv2d_native_backprop_filter(s, x, shape_vector(s, w), dy[0], a)};
  return {};
}

// z = BackpropInput(sizes, w, g), linear in w and g: dw = BackpropFilter(dz, shape(w), g),
// dg = DepthwiseConv2dNative(dz, w).
status depthwise_backprop_input_grad(const scope& s, const grad_op_info& op,
                                     const grad_list& dz, grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &w = op.inputs[1], &g = op.inputs[2];
  *dx = {output{},
         ops::depthwise_conv2d_native_backprop_filter(s, dz[0], shape_vector(s, w), g, a),
         ops::depthwise_conv2d_native(s, dz[0], w, a)};
  return {};
}

// z = BackpropFilter(x, sizes, g), linear in x and g: dx = BackpropInput(shape(x), dz, g),
// dg = DepthwiseConv2dNative(x, dz).
status depthwise_backprop_filter_grad(const scope& s, const grad_op_info& op,
                                      const grad_list& dz, grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output &x = op.inputs[0], &g = op.inputs[2];
  *dx = {ops::depthwise_conv2d_native_backprop_input(s, shape_vector(s, x), dz[0], g, a),
         output{}, ops::depthwise_conv2d_native(s, x, dz[0], a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNative", depthwise_grad);
CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropInput", depthwise_backprop_input_grad);
CAFLOW_REGISTER_GRADIENT("DepthwiseConv2dNativeBackpropFilter", depthwise_backprop_filter_grad);

}  // namespace caflow
