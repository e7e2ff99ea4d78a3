// Gradients of the convolution and pooling ops (graph/client/ops/conv_ops.hpp), as TensorFlow's
// nn_grad.py defines them. Conv2D and its backprops are bilinear, so each one's gradient is
// another of the three with the same attrs; the pools' gradients are their Grad ops.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/conv_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status pool_attrs_of(const grad_op_info& op, ops::pool_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("ksize", &a->ksize));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  return op.get_attr("data_format", &a->data_format);
}

// y = Conv2D(x, w): dx = Conv2DBackpropInput(shape(x), w, dy),
// dw = Conv2DBackpropFilter(x, shape(w), dy).
status conv2d_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &x = op.inputs[0], &w = op.inputs[1];
  *dx = {ops::conv2d_backprop_input(s, grad::shape_of(s, x), w, dy[0], a),
         ops::conv2d_backprop_filter(s, x, grad::shape_of(s, w), dy[0], a)};
  return {};
}

// z = Conv2DBackpropInput(sizes, w, g) is linear in w and in g: with dz shaped like the
// convolution's input, dw = Conv2DBackpropFilter(dz, shape(w), g) and dg = Conv2D(dz, w).
status conv2d_backprop_input_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                                  grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &w = op.inputs[1], &g = op.inputs[2];
  *dx = {output{}, ops::conv2d_backprop_filter(s, dz[0], grad::shape_of(s, w), g, a),
         ops::conv2d(s, dz[0], w, a)};
  return {};
}

// z = Conv2DBackpropFilter(x, sizes, g), linear in x and in g: with dz shaped like the filter,
// dx = Conv2DBackpropInput(shape(x), dz, g) and dg = Conv2D(x, dz).
status conv2d_backprop_filter_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                                   grad_list* dx) {
  ops::conv2d_attrs a;
  CAFLOW_RETURN_IF_ERROR(grad::conv2d_attrs_of(op, &a));
  const output &x = op.inputs[0], &g = op.inputs[2];
  *dx = {ops::conv2d_backprop_input(s, grad::shape_of(s, x), dz[0], g, a), output{},
         ops::conv2d(s, x, dz[0], a)};
  return {};
}

status max_pool_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                     grad_list* dx) {
  ops::pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(pool_attrs_of(op, &a));
  *dx = {ops::max_pool_grad(s, op.inputs[0], op.outputs[0], dy[0], a)};
  return {};
}

status avg_pool_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                     grad_list* dx) {
  ops::pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(pool_attrs_of(op, &a));
  *dx = {ops::avg_pool_grad(s, grad::shape_of(s, op.inputs[0]), dy[0], a)};
  return {};
}

// AvgPoolGrad(shape, g) is linear in g, and its adjoint is AvgPool itself.
status avg_pool_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  ops::pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(pool_attrs_of(op, &a));
  *dx = {output{}, ops::avg_pool(s, dz[0], a)};
  return {};
}

// MaxPoolGrad and MaxPoolGradGrad are linear in grad and each other's adjoints; the original
// input and output only pick the maxima, and get zeros, as in TF.
template <bool GradGrad>
status max_pool_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  ops::pool_attrs a;
  CAFLOW_RETURN_IF_ERROR(pool_attrs_of(op, &a));
  const output adjoint = GradGrad ? ops::max_pool_grad(s, op.inputs[0], op.inputs[1], dz[0], a)
                                  : ops::max_pool_grad_grad(s, op.inputs[0], op.inputs[1], dz[0], a);
  *dx = {ops::zeros_like(s, op.inputs[0]), ops::zeros_like(s, op.inputs[1]), adjoint};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Conv2D", conv2d_grad);
CAFLOW_REGISTER_GRADIENT("Conv2DBackpropInput", conv2d_backprop_input_grad);
CAFLOW_REGISTER_GRADIENT("Conv2DBackpropFilter", conv2d_backprop_filter_grad);
CAFLOW_REGISTER_GRADIENT("MaxPool", max_pool_grad);
CAFLOW_REGISTER_GRADIENT("MaxPoolGrad", max_pool_grad_grad<false>);
CAFLOW_REGISTER_GRADIENT("MaxPoolGradGrad", max_pool_grad_grad<true>);
CAFLOW_REGISTER_GRADIENT("AvgPool", avg_pool_grad);
CAFLOW_REGISTER_GRADIENT("AvgPoolGrad", avg_pool_grad_grad);

}  // namespace caflow
