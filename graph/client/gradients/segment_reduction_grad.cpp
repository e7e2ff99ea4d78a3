// Gradients of the sorted segment reductions (graph/client/ops/math_segment_ops.hpp), as
// TF's math_grad.py: each data row gets its segment's gradient, gathered back by segment id.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/math_binary_ops.hpp"
#include "graph/client/ops/math_segment_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status segment_sum_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                        grad_list* dx) {
  *dx = {ops::gather(s, dz[0], op.inputs[1]), output{}};
  return {};
}

// Each row carries 1 / (its segment's size) of the segment's gradient.
status segment_mean_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                         grad_list* dx) {
  const output &data = op.inputs[0], &ids = op.inputs[1];
  const output counts = ops::segment_sum(s, ops::ones_like(s, data), ids);
  *dx = {ops::gather(s, ops::real_div(s, dz[0], counts), ids), output{}};
  return {};
}

// The gradient goes to the rows that attained the extremum, split evenly among ties.
status segment_extremum_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                             grad_list* dx) {
  const output &data = op.inputs[0], &ids = op.inputs[1];
  const output selected = ops::equal(s, data, ops::gather(s, op.outputs[0], ids));
  const output num_selected = ops::segment_sum(s, ops::cast(s, selected, dz[0].type), ids);
  const output share = ops::gather(s, ops::real_div(s, dz[0], num_selected), ids);
  *dx = {ops::select(s, selected, share, ops::zeros_like(s, data)), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("SegmentSum", segment_sum_grad);
CAFLOW_REGISTER_GRADIENT("SegmentMean", segment_mean_grad);
CAFLOW_REGISTER_GRADIENT("SegmentMax", segment_extremum_grad);
CAFLOW_REGISTER_GRADIENT("SegmentMin", segment_extremum_grad);

}  // namespace caflow
