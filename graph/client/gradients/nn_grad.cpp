// Gradients of the neural-network ops (graph/client/ops/nn_ops.hpp), as TensorFlow defines them.
// Activations differentiate through their outputs (y), so the forward input need not be kept.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// True when `g` is the zeros add_symbolic_gradients gives an output no gradient reaches, so
// a term it would only multiply need not be built.
bool is_zeros(const scope& s, const output& g) {
  const auto n = s.find_node(g.node);
  return n && n->op == "ZerosLike";
}

// The gradient through softmax y of a gradient g on y: (g - sum(g * y)) * y along the last
// dimension.
output softmax_backward(const scope& s, const output& y, const output& g) {
  const output dot = ops::sum(s, ops::mul(s, g, y), {-1}, {.keep_dims = true});
  return ops::mul(s, ops::sub(s, g, dot), y);
}

status bias_add_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                     grad_list* dx) {
  ops::bias_add_attrs attrs;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &attrs.data_format));
  *dx = {dy[0], ops::bias_add_grad(s, dy[0], attrs)};
  return {};
}

status relu_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  // relu(x) > 0 exactly where x > 0.
  *dx = {ops::relu_grad(s, dy[0], op.outputs[0])};
  return {};
}

status sigmoid_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {ops::sigmoid_grad(s, op.outputs[0], dy[0])};
  return {};
}

status tanh_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {ops::tanh_grad(s, op.outputs[0], dy[0])};
  return {};
}

// ReluGrad(g, x) = g * (x > 0): linear in g, piecewise constant in x.
status relu_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                      grad_list* dx) {
  const output& features = op.inputs[1];
  *dx = {ops::relu_grad(s, dz[0], features), ops::zeros_like(s, features)};
  return {};
}

// SigmoidGrad(y, dy) = dy * y * (1 - y): d/dy = dy * (1 - 2y), d/d(dy) = y * (1 - y).
status sigmoid_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                         grad_list* dx) {
  const output &y = op.inputs[0], &d = op.inputs[1];
  const output gd = ops::mul(s, dz[0], d);
  const output two = grad::scalar(s, y.type, 2.0);
  *dx = {ops::sub(s, gd, ops::mul(s, two, ops::mul(s, gd, y))), ops::sigmoid_grad(s, y, dz[0])};
  return {};
}

// TanhGrad(y, dy) = dy * (1 - y^2): d/dy = -2 y dy, d/d(dy) = 1 - y^2.
status tanh_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                      grad_list* dx) {
  const output &y = op.inputs[0], &d = op.inputs[1];
  const output minus_two = grad::scalar(s, y.type, -2.0);
  *dx = {ops::mul(s, dz[0], ops::mul(s, minus_two, ops::mul(s, d, y))),
         ops::tanh_grad(s, y, dz[0])};
  return {};
}

status softmax_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {softmax_backward(s, op.outputs[0], dy[0])};
  return {};
}

// y = x - log(sum(exp(x))): dx = g - sum(g) * softmax(x), with softmax(x) = exp(y).
status log_softmax_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                        grad_list* dx) {
  const output total = ops::sum(s, dy[0], {-1}, {.keep_dims = true});
  *dx = {ops::sub(s, dy[0], ops::mul(s, total, ops::exp(s, op.outputs[0])))};
  return {};
}

// Both losses: loss' gradient is backprop (scaled per row by the [batch] gradient of loss);
// backprop = softmax(features) - labels adds the softmax term when its own gradient is used.
// Sparse labels (indices) get no gradient; dense ones do (dense_cross_entropy_grad).
status cross_entropy_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  output g = ops::mul(s, ops::expand_dims(s, dz[0], -1), op.outputs[1]);
  if (!is_zeros(s, dz[1]))
    g = ops::add(s, g, softmax_backward(s, ops::softmax(s, op.inputs[0]), dz[1]));
  *dx = {g, output{}};
  return {};
}

// TF >= 1.5 gives the dense labels a gradient too: d loss / d labels = -log_softmax(logits).
// Features and labels may broadcast against each other (TF >= 1.14): both gradients are summed
// back over the dims their input was broadcast along.
status dense_cross_entropy_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                                grad_list* dx) {
  CAFLOW_RETURN_IF_ERROR(cross_entropy_grad(s, op, dz, dx));
  const output labels_grad = ops::mul(s, ops::expand_dims(s, dz[0], -1),
                                      ops::neg(s, ops::log_softmax(s, op.inputs[0])));
  const grad::unbroadcast unbroadcast(s, op.inputs[0], op.inputs[1]);
  *dx = {unbroadcast.x_grad((*dx)[0]), unbroadcast.y_grad(labels_grad)};
  return {};
}

// BiasAddGrad sums dy over every dim but the channels': its gradient spreads the incoming one
// back over them (second order through bias_add).
status bias_add_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  std::string format = "NHWC";
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &format));
  output g = dz[0];
  if (format == "NCHW") {
    const partial_shape shape = s.shape_of(op.inputs[0]);
    if (!shape.rank_known())
      return errors::unimplemented("the second-order gradient of an NCHW BiasAdd needs dy's rank");
    std::vector<int64_t> dims(static_cast<size_t>(shape.rank()), 1);
    dims[1] = -1;
    dims[0] = 1;
    g = ops::reshape(s, g, dims);
  }
  *dx = {ops::add(s, ops::zeros_like(s, op.inputs[0]), g)};
  return {};
}

status l2_loss_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {ops::mul(s, op.inputs[0], dy[0])};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("BiasAdd", bias_add_grad);
CAFLOW_REGISTER_GRADIENT("Relu", relu_grad);
CAFLOW_REGISTER_GRADIENT("Sigmoid", sigmoid_grad);
CAFLOW_REGISTER_GRADIENT("Tanh", tanh_grad);
CAFLOW_REGISTER_GRADIENT("ReluGrad", relu_grad_grad);
CAFLOW_REGISTER_GRADIENT("SigmoidGrad", sigmoid_grad_grad);
CAFLOW_REGISTER_GRADIENT("TanhGrad", tanh_grad_grad);
CAFLOW_REGISTER_GRADIENT("Softmax", softmax_grad);
CAFLOW_REGISTER_GRADIENT("LogSoftmax", log_softmax_grad);
CAFLOW_REGISTER_GRADIENT("SoftmaxCrossEntropyWithLogits", dense_cross_entropy_grad);
CAFLOW_REGISTER_GRADIENT("BiasAddGrad", bias_add_grad_grad);
CAFLOW_REGISTER_GRADIENT("SparseSoftmaxCrossEntropyWithLogits", cross_entropy_grad);
CAFLOW_REGISTER_GRADIENT("L2Loss", l2_loss_grad);
CAFLOW_REGISTER_NO_GRADIENT("StopGradient");
CAFLOW_REGISTER_NO_GRADIENT("BroadcastGradientArgs");

}  // namespace caflow
