// Gradients of the reductions Sum, Mean, Max, Min and Prod (graph/client/ops/reduction_ops.hpp).
#include <optional>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/scan_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/array_index_util.hpp"

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

// The permutation putting the reduced dims of x first (in order), and its inverse, as int32
// vectors: Consts when the reduced dims are known, else worked out from their mask.
struct reduced_first {
  output perm, inverse;
};

status_or<reduced_first> reduced_first_of(const scope& s, const output& x, const output& mask) {
  if (const std::optional<tensor> known = s.constant_value(mask)) {
    const std::vector<int64_t> m = index_values(*known);
    std::vector<int64_t> perm, inverse(m.size());
    for (int pass = 1; pass >= 0; --pass)
      for (size_t d = 0; d < m.size(); ++d)
        if (m[d] == pass) {
          inverse[d] = static_cast<int64_t>(perm.size());
          perm.push_back(static_cast<int64_t>(d));
        }
    return reduced_first{grad::index_vector(s, perm, dtype::int32),
                         grad::index_vector(s, inverse, dtype::int32)};
  }
  // Where dim d goes: among the reduced dims, its rank among them; otherwise after all of
  // them, in its rank among the kept dims. Scattering 0..rank-1 to those places inverts it.
  const output one = ops::constant(s, int32_t{1});
  const output kept = ops::sub(s, one, mask);
  const output inverse = ops::add(
      s, ops::mul(s, mask, ops::cumsum(s, mask, 0, {.exclusive = true})),
      ops::mul(s, kept,
               ops::add(s, ops::sum(s, mask, {0}), ops::cumsum(s, kept, 0, {.exclusive = true}))));
  const output rank = ops::rank(s, x);
  const output perm = ops::unsorted_segment_sum(
      s, ops::range(s, ops::constant(s, int32_t{0}), rank, one), inverse, rank);
  return reduced_first{perm, inverse};
}

// Each element's gradient is the product of the other elements of its reduced slice:
// with the slice laid out along one dim, the exclusive products from the front times those
// from the back (TensorFlow's method). No division, so zeros in x give exact gradients.
status prod_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &axes = op.inputs[1];
  CAFLOW_ASSIGN_OR_RETURN(const output spread, grad::broadcast_to_input(s, dy[0], x, axes));
  CAFLOW_ASSIGN_OR_RETURN(const output mask, grad::axes_mask(s, x, axes));
  CAFLOW_ASSIGN_OR_RETURN(const reduced_first order, reduced_first_of(s, x, mask));
  const output shape = grad::shape_of(s, x);
  const output one = ops::constant(s, int32_t{1});
  const output kept = ops::sub(s, one, mask);
  // The number of elements in each reduced slice, and of slices: the dims of the other kind
  // count as 1.
  const output reduced_n = ops::prod(s, ops::add(s, ops::mul(s, shape, mask), kept), {0});
  const output other_n = ops::prod(s, ops::add(s, ops::mul(s, shape, kept), mask), {0});
  const output permuted = ops::transpose(s, x, order.perm);
  const output slices = ops::reshape(s, permuted, ops::pack(s, {reduced_n, other_n}));
  const output others = ops::mul(s, ops::cumprod(s, slices, 0, {.exclusive = true}),
                                 ops::cumprod(s, slices, 0, {.exclusive = true, .reverse = true}));
  const output back =
      ops::transpose(s, ops::reshape(s, others, ops::shape(s, permuted)), order.inverse);
  *dx = {ops::mul(s, spread, back), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Sum", sum_grad);
CAFLOW_REGISTER_GRADIENT("Mean", mean_grad);
CAFLOW_REGISTER_GRADIENT("Max", extreme_grad);
CAFLOW_REGISTER_GRADIENT("Min", extreme_grad);
CAFLOW_REGISTER_GRADIENT("Prod", prod_grad);
CAFLOW_REGISTER_NO_GRADIENT("ArgMax");
CAFLOW_REGISTER_NO_GRADIENT("All");  // bools
CAFLOW_REGISTER_NO_GRADIENT("Any");
CAFLOW_REGISTER_NO_GRADIENT("ArgMin");

}  // namespace caflow
