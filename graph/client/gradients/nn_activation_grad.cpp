// Gradients of the activations of graph/client/ops/nn_activation_ops.hpp and of their *Grad
// ops (for second order), following TF's nn_grad.py.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_activation_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// Prelu(x, alpha) = x > 0 ? x : alpha * x: dx = x > 0 ? g : alpha * g, and dalpha = x > 0 ? 0 :
// x * g summed back over the dims alpha was broadcast along.
status prelu_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &alpha = op.inputs[1], &g = dz[0];
  const output positive = ops::greater(s, x, ops::zeros_like(s, x));
  const output zeros = ops::zeros_like(s, g);
  const output alpha_grad = ops::select_v2(s, positive, zeros, ops::mul(s, x, g));
  *dx = {ops::select_v2(s, positive, g, ops::mul(s, alpha, g)),
         grad::unbroadcast(s, x, alpha).y_grad(alpha_grad)};
  return {};
}

status relu6_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::relu6_grad(s, dz[0], op.inputs[0])};
  return {};
}

// Elu and Selu's gradients are written in terms of their outputs.
status elu_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::elu_grad(s, dz[0], op.outputs[0])};
  return {};
}

status selu_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::selu_grad(s, dz[0], op.outputs[0])};
  return {};
}

status softplus_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::softplus_grad(s, dz[0], op.inputs[0])};
  return {};
}

status softsign_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::softsign_grad(s, dz[0], op.inputs[0])};
  return {};
}

float alpha_of(const grad_op_info& op) {
  float alpha = 0.2f;
  (void)op.get_attr("alpha", &alpha);  // declared with a default: always present
  return alpha;
}

status leaky_relu_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                       grad_list* dx) {
  *dx = {ops::leaky_relu_grad(s, dz[0], op.inputs[0], {.alpha = alpha_of(op)})};
  return {};
}

// --- second order ---

// Relu6Grad(g, x) and LeakyReluGrad(g, x) are linear in g and piecewise constant in x.
status relu6_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                       grad_list* dx) {
  *dx = {ops::relu6_grad(s, dz[0], op.inputs[1]), ops::zeros_like(s, op.inputs[1])};
  return {};
}

status leaky_relu_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  *dx = {ops::leaky_relu_grad(s, dz[0], op.inputs[1], {.alpha = alpha_of(op)}),
         ops::zeros_like(s, op.inputs[1])};
  return {};
}

// EluGrad(g, a) = g (a + 1) where a < 0, else g (and SeluGrad alike, with other constants):
// d/dg is the same op applied to the incoming gradient; d/da = g where a < 0, else 0.
template <output (*Same)(const scope&, const output&, const output&)>
status exp_linear_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                            grad_list* dx) {
  const output &g = op.inputs[0], &a = op.inputs[1];
  const output negative = ops::less(s, a, ops::zeros_like(s, a));
  *dx = {Same(s, dz[0], a),
         ops::select(s, negative, ops::mul(s, dz[0], g), ops::zeros_like(s, a))};
  return {};
}

// SoftplusGrad(g, x) = g sigmoid(x): d/dg = SoftplusGrad(., x), d/dx = g sigmoid'(x)
// = g / (e^-x + 2 + e^x).
status softplus_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                          grad_list* dx) {
  const output &g = op.inputs[0], &x = op.inputs[1];
  const output denom = ops::add(
      s, ops::add(s, ops::exp(s, ops::neg(s, x)), grad::scalar(s, x.type, 2.0)), ops::exp(s, x));
  *dx = {ops::softplus_grad(s, dz[0], x), ops::real_div(s, ops::mul(s, dz[0], g), denom)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Relu6", relu6_grad);
CAFLOW_REGISTER_GRADIENT("Prelu", prelu_grad);
CAFLOW_REGISTER_GRADIENT("Elu", elu_grad);
CAFLOW_REGISTER_GRADIENT("Selu", selu_grad);
CAFLOW_REGISTER_GRADIENT("Softplus", softplus_grad);
CAFLOW_REGISTER_GRADIENT("Softsign", softsign_grad);
CAFLOW_REGISTER_GRADIENT("LeakyRelu", leaky_relu_grad);
CAFLOW_REGISTER_GRADIENT("Relu6Grad", relu6_grad_grad);
CAFLOW_REGISTER_GRADIENT("LeakyReluGrad", leaky_relu_grad_grad);
CAFLOW_REGISTER_GRADIENT("EluGrad", exp_linear_grad_grad<ops::elu_grad>);
CAFLOW_REGISTER_GRADIENT("SeluGrad", exp_linear_grad_grad<ops::selu_grad>);
CAFLOW_REGISTER_GRADIENT("SoftplusGrad", softplus_grad_grad);

}  // namespace caflow
