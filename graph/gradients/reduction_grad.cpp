// Gradients of the reductions Sum, Mean, Max and Min (graph/ops/reduction_ops.hpp).
#include "graph/gradients/grad_util.hpp"
#include "graph/ops/math_ops.hpp"
#include "graph/ops/reduction_ops.hpp"
#include "graph/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// Every element of x contributed once to its reduced output.
status sum_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  CAFLOW_ASSIGN_OR_RETURN(const output spread,
                          grad::broadcast_to_input(s, dy[0], op.inputs[0], op.inputs[1]));
  *dx = {spread, output{}};
  return {};
}

// As Sum, divided by the number of elements averaged into each output.
status mean_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &y = op.outputs[0];
  CAFLOW_ASSIGN_OR_RETURN(const output spread, grad::broadcast_to_input(s, dy[0], x, op.inputs[1]));
  const partial_shape sx = s.shape_of(x), sy = s.shape_of(y);
  output count;
  if (sx.fully_defined() && sy.fully_defined()) {
    const int64_t out_elements = sy.to_shape().num_elements();
    const double n = out_elements == 0 ? 1.0
                                       : static_cast<double>(sx.to_shape().num_elements()) /
                                             static_cast<double>(out_elements);
    count = grad::scalar(s, x.type, n);
  } else {
    // In floating point, so that an empty input gives an empty gradient rather than an
    // integer division by zero.
    count = ops::real_div(s, ops::cast(s, ops::size(s, x, {.out_type = dtype::int64}), x.type),
                          ops::cast(s, ops::size(s, y, {.out_type = dtype::int64}), x.type));
  }
  *dx = {ops::real_div(s, spread, count), output{}};
  return {};
}

// The gradient goes to the elements equal to the extreme value, split evenly among ties
// (TensorFlow's rule).
status extreme_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &axes = op.inputs[1], &y = op.outputs[0];
  CAFLOW_ASSIGN_OR_RETURN(const grad::reduction_shapes shapes,
                          grad::reduction_shapes_of(s, x, axes));
  const output y_kept = ops::reshape(s, y, shapes.kept);
  const output g_kept = ops::reshape(s, dy[0], shapes.kept);
  const output hits = ops::cast(s, ops::equal(s, x, y_kept), x.type);
  const output ties = ops::sum(s, hits, axes, {.keep_dims = true});
  *dx = {ops::mul(s, ops::real_div(s, hits, ties), g_kept), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Sum", sum_grad);
CAFLOW_REGISTER_GRADIENT("Mean", mean_grad);
CAFLOW_REGISTER_GRADIENT("Max", extreme_grad);
CAFLOW_REGISTER_GRADIENT("Min", extreme_grad);
CAFLOW_REGISTER_NO_GRADIENT("ArgMax");
CAFLOW_REGISTER_NO_GRADIENT("ArgMin");

}  // namespace caflow
