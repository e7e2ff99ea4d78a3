// Gradients of Cumsum and Cumprod (graph/client/ops/scan_ops.hpp).
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/scan_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status scan_attrs(const grad_op_info& op, ops::cumulative_attrs* attrs) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("exclusive", &attrs->exclusive));
  return op.get_attr("reverse", &attrs->reverse);
}

// Output j sums the x_i at or before it (before it, if exclusive) in scan order, so x_i's
// gradient sums dy_j over the j at or after i: the same scan run the other way.
status cumsum_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  ops::cumulative_attrs attrs;
  CAFLOW_RETURN_IF_ERROR(scan_attrs(op, &attrs));
  *dx = {ops::cumsum(s, dy[0], op.inputs[1],
                     {.exclusive = attrs.exclusive, .reverse = !attrs.reverse}),
         output{}};
  return {};
}

// With scan order positions and z the first zero of x (n if none), y_j = prod_{i<=j} x_i
// (i<j if exclusive) and dx_k = sum_{j>=k} dy_j prod_{i<=j, i!=k} x_i:
//   k < z:  no zero up to k, so dx_k = (reverse cumsum of dy * y)_k / x_k, as in TensorFlow;
//   k = z:  the products skip x_z, so dx_z = (reverse cumsum of dy * cumprod(x'))_z, where x'
//           is x with x_z set to 1;
//   k > z:  every product keeps the factor x_z = 0, so dx_k = 0.
// This is exact for any number of zeros, where TensorFlow's division gives inf or NaN.
status cumprod_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  ops::cumulative_attrs attrs;
  CAFLOW_RETURN_IF_ERROR(scan_attrs(op, &attrs));
  const output &x = op.inputs[0], &axis = op.inputs[1], &y = op.outputs[0];
  const ops::cumulative_attrs back{.exclusive = attrs.exclusive, .reverse = !attrs.reverse};
  const output one = ops::ones_like(s, x);
  const output is_zero = ops::cast(s, ops::equal(s, x, grad::scalar(s, x.type, 0.0)), x.type);
  const output zeros_before =
      ops::cumsum(s, is_zero, axis, {.exclusive = true, .reverse = attrs.reverse});
  const output before_zero =
      ops::equal(s, ops::add(s, zeros_before, is_zero), grad::scalar(s, x.type, 0.0));
  // 2 * (zeros before) + (is zero) is 1 only at the first zero.
  const output first_zero =
      ops::equal(s, ops::add(s, ops::mul(s, zeros_before, grad::scalar(s, x.type, 2.0)), is_zero),
                 grad::scalar(s, x.type, 1.0));

  const output safe_x = ops::select(s, before_zero, x, one);
  const output divided =
      ops::real_div(s, ops::cumsum(s, ops::mul(s, dy[0], y), axis, back), safe_x);
  const output skipped = ops::cumprod(s, ops::select(s, first_zero, one, x), axis, attrs);
  const output at_zero = ops::cumsum(s, ops::mul(s, dy[0], skipped), axis, back);
  *dx = {ops::select(s, before_zero, divided,
                     ops::select(s, first_zero, at_zero, ops::zeros_like(s, x))),
         output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Cumsum", cumsum_grad);
CAFLOW_REGISTER_GRADIENT("Cumprod", cumprod_grad);

}  // namespace caflow
