// Gradients of the broadcasting binary ops of graph/client/ops/math_binary_ops.hpp (and
// FloorMod's), following TF's math_grad.py. Each input's gradient is summed back to that
// input's shape (grad::unbroadcast).
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_binary_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// z = x mod y = x - q y with q = floor(x / y) or trunc(x / y), constant almost everywhere:
// dz/dx = 1, dz/dy = -q. q is recovered exactly as (x - z) / y.
status mod_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1], &z = op.outputs[0];
  const grad::unbroadcast u(s, x, y);
  const output q = ops::real_div(s, ops::sub(s, x, z), y);
  *dx = {u.x_grad(dz[0]), u.y_grad(ops::neg(s, ops::mul(s, dz[0], q)))};
  return {};
}

// x / y: d/dx = 1 / y, d/dy = -x / y^2 (floats; integer Div carries no gradient).
status div_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  const output neg_x_over_y2 = ops::div(s, ops::div(s, ops::neg(s, x), y), y);
  *dx = {u.x_grad(ops::div(s, dz[0], y)), u.y_grad(ops::mul(s, dz[0], neg_x_over_y2))};
  return {};
}

// (x - y)^2: d/dx = 2 (x - y), d/dy = -2 (x - y).
status squared_difference_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                               grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  const output two = grad::scalar(s, x.type, 2.0);
  const output gx = ops::mul(s, dz[0], ops::mul(s, two, ops::sub(s, x, y)));
  *dx = {u.x_grad(gx), u.y_grad(ops::neg(s, gx))};
  return {};
}

// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
status atan2_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &y = op.inputs[0], &x = op.inputs[1];
  const grad::unbroadcast u(s, y, x);
  const output scaled =
      ops::real_div(s, dz[0], ops::add(s, ops::square(s, x), ops::square(s, y)));
  *dx = {u.x_grad(ops::mul(s, scaled, x)), u.y_grad(ops::neg(s, ops::mul(s, scaled, y)))};
  return {};
}

// x / y taken as 0 where y == 0, and so are its derivatives there.
status div_no_nan_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                       grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  const output gy = ops::mul(s, dz[0], ops::div_no_nan(s, ops::div_no_nan(s, ops::neg(s, x), y), y));
  *dx = {u.x_grad(ops::div_no_nan(s, dz[0], y)), u.y_grad(gy)};
  return {};
}

// 1 where x != 0, else 0, in x's type: where x == 0 the ops below are 0 whatever y is.
output not_zero(const scope& s, const output& x) {
  return ops::cast(s, ops::not_equal(s, x, ops::zeros_like(s, x)), x.type);
}

// x log y: d/dx = log y (0 where x == 0), d/dy = x / y (0 where x == 0).
status xlogy_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  *dx = {u.x_grad(ops::mul(s, dz[0], ops::xlogy(s, not_zero(s, x), y))),
         u.y_grad(ops::mul(s, dz[0], ops::xdivy(s, x, y)))};
  return {};
}

// x / y: d/dx = 1 / y (0 where x == 0), d/dy = -x / y^2.
status xdivy_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.inputs[1];
  const grad::unbroadcast u(s, x, y);
  *dx = {u.x_grad(ops::mul(s, dz[0], ops::xdivy(s, not_zero(s, x), y))),
         u.y_grad(ops::mul(s, dz[0], ops::xdivy(s, ops::neg(s, x), ops::square(s, y))))};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Div", div_grad);
CAFLOW_REGISTER_GRADIENT("FloorMod", mod_grad);
CAFLOW_REGISTER_GRADIENT("Mod", mod_grad);
CAFLOW_REGISTER_GRADIENT("TruncateMod", mod_grad);
CAFLOW_REGISTER_GRADIENT("SquaredDifference", squared_difference_grad);
CAFLOW_REGISTER_GRADIENT("Atan2", atan2_grad);
CAFLOW_REGISTER_GRADIENT("DivNoNan", div_no_nan_grad);
CAFLOW_REGISTER_GRADIENT("Xlogy", xlogy_grad);
CAFLOW_REGISTER_GRADIENT("Xdivy", xdivy_grad);
CAFLOW_REGISTER_NO_GRADIENT("TruncateDiv");  // integers only
CAFLOW_REGISTER_NO_GRADIENT("NotEqual");
CAFLOW_REGISTER_NO_GRADIENT("GreaterEqual");
CAFLOW_REGISTER_NO_GRADIENT("LessEqual");
CAFLOW_REGISTER_NO_GRADIENT("LogicalAnd");
CAFLOW_REGISTER_NO_GRADIENT("LogicalOr");

}  // namespace caflow
