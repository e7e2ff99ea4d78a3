// Gradients of the element-wise math ops (graph/client/ops/math_ops.hpp). Binary ops broadcast, so
// each input's gradient is summed back to that input's shape (grad::unbroadcast).
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// --- binary, broadcasting ---

status add_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const grad::unbroadcast u(s, op.inputs[0], op.inputs[1]);
  *dx = {u.x_grad(dz[0]), u.y_grad(dz[0])};
  return {};
}

status sub_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const grad::unbroadcast u(s, op.inputs[0], op.inputs[1]);
  *dx = {u.x_grad(dz[0]), u.y_grad(ops::neg(s, dz[0]))};
  return {};
}

status mul_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  *dx = {u.x_grad(ops::mul(s, dz[0], y)), u.y_grad(ops::mul(s, x, dz[0]))};
  return {};
}

// z = x / y: dz/dx = 1 / y, dz/dy = -x / y^2.
status real_div_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  const output neg_x_over_y2 = ops::real_div(s, ops::real_div(s, ops::neg(s, x), y), y);
  *dx = {u.x_grad(ops::real_div(s, dz[0], y)), u.y_grad(ops::mul(s, dz[0], neg_x_over_y2))};
  return {};
}

// The gradient goes to the input the op picked; ties go to x, as in TensorFlow (whose mask
// is x >= y for Maximum and x <= y for Minimum).
status pick_grad(const scope& s, const grad_op_info& op, const output& y_picked,
                 const grad_list& dz, grad_list* dx) {
  const grad::unbroadcast u(s, op.inputs[0], op.inputs[1]);
  const output zeros = ops::zeros_like(s, dz[0]);
  *dx = {u.x_grad(ops::select(s, y_picked, zeros, dz[0])),
         u.y_grad(ops::select(s, y_picked, dz[0], zeros))};
  return {};
}

status maximum_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  return pick_grad(s, op, ops::less(s, op.inputs[0], op.inputs[1]), dz, dx);
}

status minimum_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  return pick_grad(s, op, ops::greater(s, op.inputs[0], op.inputs[1]), dz, dx);
}

// z = x^y: dz/dx = y x^(y-1); dz/dy = z log(x), taken as 0 where x <= 0 (as TensorFlow does:
// there the real power is defined only for integral y, whose neighbourhood it leaves).
status pow_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1], &z = op.outputs[0];
  const grad::unbroadcast u(s, x, y);
  const output one = grad::scalar(s, x.type, 1.0);
  const output dzdx = ops::mul(s, y, ops::pow(s, x, ops::sub(s, y, one)));
  const output zeros = ops::zeros_like(s, x);
  const output log_x = ops::select(s, ops::greater(s, x, zeros), ops::log(s, x), zeros);
  *dx = {u.x_grad(ops::mul(s, dz[0], dzdx)), u.y_grad(ops::mul(s, dz[0], ops::mul(s, z, log_x)))};
  return {};
}

// Every input gets the sum's gradient as it is: sparse stays sparse (TF's _AddNGrad).
status add_n_grad(const scope&, const grad_op_info& op, const std::vector<gradient_value>& dz,
                  std::vector<gradient_value>* dx) {
  dx->assign(op.inputs.size(), dz[0]);
  return {};
}

// --- unary ---

status neg_grad(const scope& s, const grad_op_info&, const grad_list& dz, grad_list* dx) {
  *dx = {ops::neg(s, dz[0])};
  return {};
}

status square_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output& x = op.inputs[0];
  *dx = {ops::mul(s, dz[0], ops::mul(s, grad::scalar(s, x.type, 2.0), x))};
  return {};
}

// y = sqrt(x): dy/dx = 0.5 / y.
status sqrt_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output& y = op.outputs[0];
  *dx = {ops::real_div(s, ops::mul(s, dz[0], grad::scalar(s, y.type, 0.5)), y)};
  return {};
}

// y = x^(-1/2): dy/dx = -0.5 y^3.
status rsqrt_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output& y = op.outputs[0];
  const output y3 = ops::mul(s, ops::square(s, y), y);
  *dx = {ops::mul(s, dz[0], ops::mul(s, grad::scalar(s, y.type, -0.5), y3))};
  return {};
}

status exp_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::mul(s, dz[0], op.outputs[0])};
  return {};
}

status log_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::real_div(s, dz[0], op.inputs[0])};
  return {};
}

status abs_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::mul(s, dz[0], ops::sign(s, op.inputs[0]))};
  return {};
}

// y = 1 / x: dy/dx = -y^2.
status reciprocal_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  *dx = {ops::mul(s, ops::neg(s, dz[0]), ops::square(s, op.outputs[0]))};
  return {};
}

bool is_float(dtype t) { return t == dtype::float32 || t == dtype::float64; }

// Between floating types the gradient is cast back; anything involving integers or bool is
// not differentiable.
status cast_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const dtype src = op.inputs[0].type, dst = op.outputs[0].type;
  if (is_float(src) && is_float(dst))
    *dx = {src == dst ? dz[0] : ops::cast(s, dz[0], src)};
  else
    *dx = {output{}};
  return {};
}

// Select(c, t, e): the gradient goes where each element came from. Select requires
// condition's shape to match or lead t's, so zeros shaped like the gradient always fit.
status select_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output& c = op.inputs[0];
  const output zeros = ops::zeros_like(s, dz[0]);
  *dx = {output{}, ops::select(s, c, dz[0], zeros), ops::select(s, c, zeros, dz[0])};
  return {};
}

// SelectV2(c, t, e): as Select, then each gradient is summed back over the dims its input was
// broadcast along to the output's shape. The condition gets none.
status select_v2_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                      grad_list* dx) {
  const output& c = op.inputs[0];
  const output zeros = ops::zeros_like(s, dz[0]);
  const output gt = ops::select_v2(s, c, dz[0], zeros);
  const output ge = ops::select_v2(s, c, zeros, dz[0]);
  *dx = {output{}, grad::unbroadcast(s, op.inputs[1], op.outputs[0]).x_grad(gt),
         grad::unbroadcast(s, op.inputs[2], op.outputs[0]).x_grad(ge)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Add", add_grad);
CAFLOW_REGISTER_GRADIENT("AddV2", add_grad);
CAFLOW_REGISTER_GRADIENT("Sub", sub_grad);
CAFLOW_REGISTER_GRADIENT("Mul", mul_grad);
CAFLOW_REGISTER_GRADIENT("RealDiv", real_div_grad);
CAFLOW_REGISTER_GRADIENT("Maximum", maximum_grad);
CAFLOW_REGISTER_GRADIENT("Minimum", minimum_grad);
CAFLOW_REGISTER_GRADIENT("Pow", pow_grad);
CAFLOW_REGISTER_SPARSE_GRADIENT("AddN", add_n_grad);
CAFLOW_REGISTER_GRADIENT("Neg", neg_grad);
CAFLOW_REGISTER_GRADIENT("Square", square_grad);
CAFLOW_REGISTER_GRADIENT("Sqrt", sqrt_grad);
CAFLOW_REGISTER_GRADIENT("Rsqrt", rsqrt_grad);
CAFLOW_REGISTER_GRADIENT("Exp", exp_grad);
CAFLOW_REGISTER_GRADIENT("Log", log_grad);
CAFLOW_REGISTER_GRADIENT("Abs", abs_grad);
CAFLOW_REGISTER_GRADIENT("Reciprocal", reciprocal_grad);
CAFLOW_REGISTER_GRADIENT("Cast", cast_grad);
CAFLOW_REGISTER_GRADIENT("Select", select_grad);
CAFLOW_REGISTER_GRADIENT("SelectV2", select_v2_grad);
// Piecewise constant: the derivative is zero wherever it exists.
CAFLOW_REGISTER_NO_GRADIENT("Sign");
CAFLOW_REGISTER_NO_GRADIENT("Floor");
CAFLOW_REGISTER_NO_GRADIENT("FloorDiv");  // piecewise constant, as TF says
CAFLOW_REGISTER_NO_GRADIENT("Equal");
CAFLOW_REGISTER_NO_GRADIENT("Greater");
CAFLOW_REGISTER_NO_GRADIENT("Less");

}  // namespace caflow
