// Gradient of GatherV2 (batch_dims 0). With params seen as [outer, n, inner] around the
// gathered axis, and the gradient as [outer, k, inner] for k indices, params' gradient is
// the transposed one-hot matrix of the indices [n, k] times the gradient, which sums the
// slices of repeated indices. That costs k x n x outer x inner multiply-adds: fine for modest
// tables, since no sparse gradient (IndexedSlices) or UnsortedSegmentSum exists here.
#include "graph/gradients/grad_util.hpp"
#include "graph/ops/array_index_util.hpp"
#include "graph/ops/array_ops.hpp"
#include "graph/ops/base_ops.hpp"
#include "graph/ops/math_ops.hpp"
#include "graph/ops/matmul_ops.hpp"
#include "graph/ops/reduction_ops.hpp"
#include "graph/ops/shape_ops.hpp"

namespace caflow {
namespace {

// outer, n and inner as int32 scalars: constants when params' shape is known.
struct gather_dims {
  output outer, n, inner;
};

gather_dims dims_around(const scope& s, const output& params, int64_t axis) {
  const partial_shape shape = s.shape_of(params);
  if (shape.fully_defined()) {
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < shape.rank(); ++d) {
      if (d < axis) outer *= shape.dim(d);
      if (d > axis) inner *= shape.dim(d);
    }
    return {ops::constant(s, static_cast<int32_t>(outer)),
            ops::constant(s, static_cast<int32_t>(shape.dim(static_cast<int>(axis)))),
            ops::constant(s, static_cast<int32_t>(inner))};
  }
  const output dims = ops::shape(s, params);
  return {ops::prod(s, ops::strided_slice(s, dims, {0}, {axis}, {1}), {0}),
          ops::strided_slice(s, dims, {axis}, {axis + 1}, {1}, {.shrink_axis_mask = 1}),
          ops::prod(s, ops::strided_slice(s, dims, {axis + 1}, {0}, {1}, {.end_mask = 1}), {0})};
}

status gather_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dy,
                   std::vector<output>* dx) {
  const output &params = op.inputs[0], &indices = op.inputs[1];
  int64_t batch_dims = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("batch_dims", &batch_dims));
  const std::optional<tensor> axis_value = s.constant_value(op.inputs[2]);
  const partial_shape shape = s.shape_of(params);
  if (batch_dims != 0 || !axis_value)
    return errors::unimplemented(
        "the gradient of GatherV2 is implemented for batch_dims 0 and a constant axis; this one "
        "has batch_dims ",
        batch_dims, " and ", axis_value ? "a constant axis" : "an axis computed at run time");
  int64_t axis = index_values(*axis_value).at(0);
  if (axis < 0) {
    if (!shape.rank_known())
      return errors::unimplemented("the gradient of GatherV2 along a negative axis (", axis,
                                   ") needs params of known rank");
    axis += shape.rank();
  }

  const gather_dims d = dims_around(s, params, axis);
  const output flat_indices = ops::reshape(s, indices, {-1});
  const output k = ops::size(s, flat_indices);
  const output one_hot = ops::one_hot(s, flat_indices, d.n, grad::scalar(s, params.type, 1.0),
                                      grad::scalar(s, params.type, 0.0));
  output rows;  // the gradient as [k, outer * inner]
  if (axis == 0) {
    rows = ops::reshape(s, dy[0], ops::pack(s, {k, d.inner}));
  } else {
    const output split = ops::reshape(s, dy[0], ops::pack(s, {d.outer, k, d.inner}));
    rows = ops::reshape(s, ops::transpose(s, split, {1, 0, 2}),
                        ops::pack(s, {k, ops::mul(s, d.outer, d.inner)}));
  }
  output summed = ops::mat_mul(s, one_hot, rows, {.transpose_a = true});  // [n, outer * inner]
  if (axis != 0)
    summed = ops::transpose(s, ops::reshape(s, summed, ops::pack(s, {d.n, d.outer, d.inner})),
                            {1, 0, 2});
  *dx = {ops::reshape(s, summed, grad::shape_of(s, params)), output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("GatherV2", gather_grad);

}  // namespace caflow
