// Gradients of GatherV2 and UnsortedSegmentSum, each built from the other.
//
// GatherV2: with params seen as [batch, outer, n, inner] around the gathered axis and the
// gradient as [batch, outer, count, inner] (batch: the batch_dims leading dims, count: the
// indices of one batch element), params' gradient sums the gradient's slices into the rows
// their indices name, batch element by batch element: one UnsortedSegmentSum over
// [batch * count] rows with ids index + t * n for batch element t. Sizes are Consts when the
// shapes and the axis are known at graph construction, else worked out at run time, so the
// axis may be computed at run time too.
#include <optional>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

// int32 scalars.
struct gather_sizes {
  output batch, outer, n, inner, count;
};

output int32_const(const scope& s, int64_t v) { return ops::constant(s, static_cast<int32_t>(v)); }

// The product of dims [lo, hi) of `shape`, an int32 vector; lo and hi are int32 scalars.
output dims_product(const scope& s, const output& shape, const output& lo, const output& hi) {
  return ops::prod(
      s, ops::slice(s, shape, ops::reshape(s, lo, {1}), ops::reshape(s, ops::sub(s, hi, lo), {1})),
      {0});
}

output dims_product_from(const scope& s, const output& shape, const output& lo) {
  return ops::prod(
      s, ops::slice(s, shape, ops::reshape(s, lo, {1}), grad::index_vector(s, {-1}, dtype::int32)),
      {0});
}

// The axis in [0, rank) as an int32 scalar, for an axis known only at run time.
output canonical_axis_at_run_time(const scope& s, const output& params, const output& axis) {
  const partial_shape shape = s.shape_of(params);
  const output rank = shape.rank_known() ? int32_const(s, shape.rank()) : ops::rank(s, params);
  const output a = axis.type == dtype::int32 ? axis : ops::cast(s, axis, dtype::int32);
  const output negative = ops::cast(s, ops::less(s, a, int32_const(s, 0)), dtype::int32);
  return ops::add(s, a, ops::mul(s, rank, negative));
}

// `b` is batch_dims in [0, rank(indices)] as an int32 scalar, `known_b` its value when known
// at graph construction; `axis` likewise for the axis.
gather_sizes sizes_of(const scope& s, const output& params, const output& indices,
                      const output& axis_in, std::optional<int64_t> axis, const output& b,
                      std::optional<int64_t> known_b) {
  gather_sizes g;
  const partial_shape ps = s.shape_of(params), is = s.shape_of(indices);
  if (axis && known_b && ps.fully_defined()) {
    int64_t batch = 1, outer = 1, inner = 1;
    for (int d = 0; d < ps.rank(); ++d) {
      if (d < *known_b)
        batch *= ps.dim(d);
      else if (d < *axis)
        outer *= ps.dim(d);
      else if (d > *axis)
        inner *= ps.dim(d);
    }
    g.batch = int32_const(s, batch);
    g.outer = int32_const(s, outer);
    g.n = int32_const(s, ps.dim(static_cast<int>(*axis)));
    g.inner = int32_const(s, inner);
  } else {
    const output shape = grad::shape_of(s, params);
    const output ax = axis ? int32_const(s, *axis) : canonical_axis_at_run_time(s, params, axis_in);
    const output after = ops::add(s, ax, int32_const(s, 1));
    g.batch = dims_product(s, shape, int32_const(s, 0), b);
    g.outer = dims_product(s, shape, b, ax);
    g.n = dims_product(s, shape, ax, after);
    g.inner = dims_product_from(s, shape, after);
  }
  if (known_b && is.fully_defined()) {
    int64_t count = 1;
    for (int d = static_cast<int>(*known_b); d < is.rank(); ++d) count *= is.dim(d);
    g.count = int32_const(s, count);
  } else {
    g.count = dims_product_from(s, grad::shape_of(s, indices), b);
  }
  return g;
}

status gather_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dy,
                   std::vector<output>* dx) {
  const output &params = op.inputs[0], &indices = op.inputs[1], &axis_in = op.inputs[2];
  int64_t batch_dims = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("batch_dims", &batch_dims));
  const partial_shape ps = s.shape_of(params), is = s.shape_of(indices);
  // batch_dims < 0 counts from the end of indices' dims, known or not.
  std::optional<int64_t> known_b;
  if (batch_dims >= 0)
    known_b = batch_dims;
  else if (is.rank_known())
    known_b = batch_dims + is.rank();
  const output b = known_b ? int32_const(s, *known_b)
                           : ops::add(s, int32_const(s, batch_dims), ops::rank(s, indices));
  std::optional<int64_t> axis;  // in [0, rank) when known at graph construction
  if (const std::optional<tensor> v = s.constant_value(axis_in)) {
    const int64_t a = index_values(*v).at(0);
    if (a >= 0)
      axis = a;
    else if (ps.rank_known())
      axis = a + ps.rank();
  }
  const gather_sizes g = sizes_of(s, params, indices, axis_in, axis, b, known_b);
  // With outer = 1 the transposes between [.., outer, count, ..] and [.., count, outer, ..]
  // move nothing; skip them when that is known.
  const bool outer_is_one = axis && known_b && *axis == *known_b;

  output grad = ops::reshape(s, dy[0], ops::pack(s, {g.batch, g.outer, g.count, g.inner}));
  if (!outer_is_one) grad = ops::transpose(s, grad, {0, 2, 1, 3});
  const output rows = ops::reshape(
      s, grad, ops::pack(s, {ops::mul(s, g.batch, g.count), ops::mul(s, g.outer, g.inner)}));
  output ids = ops::reshape(s, indices, {-1});
  if (!known_b || *known_b > 0) {
    // Batch element t's rows go to segments t * n + index.
    output offsets = ops::mul(s, ops::range(s, int32_const(s, 0), g.batch, int32_const(s, 1)), g.n);
    if (indices.type != dtype::int32) offsets = ops::cast(s, offsets, indices.type);
    const output per_batch = ops::reshape(s, indices, ops::pack(s, {g.batch, g.count}));
    const output column = ops::reshape(s, offsets, ops::pack(s, {g.batch, int32_const(s, 1)}));
    ids = ops::reshape(s, ops::add(s, per_batch, column), {-1});
  }
  const output summed = ops::unsorted_segment_sum(s, rows, ids, ops::mul(s, g.batch, g.n));
  output back = ops::reshape(s, summed, ops::pack(s, {g.batch, g.n, g.outer, g.inner}));
  if (!outer_is_one) back = ops::transpose(s, back, {0, 2, 1, 3});
  *dx = {ops::reshape(s, back, grad::shape_of(s, params)), output{}, output{}};
  return {};
}

// TF's _GatherV2Grad: along axis 0 without batch dims, params' gradient is IndexedSlices,
// the gradient's rows at the gathered indices, so a lookup in a large table sends back only
// the rows it read. The dense shape is a Const when params' shape is known, else a Shape
// colocated with params (never a transfer of the table to the gradient's device). Other axes
// take the dense path above.
status gather_sparse_grad(const scope& s, const grad_op_info& op,
                          const std::vector<gradient_value>& dy, std::vector<gradient_value>* dx) {
  const output &params = op.inputs[0], &indices = op.inputs[1], &axis_in = op.inputs[2];
  int64_t batch_dims = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("batch_dims", &batch_dims));
  const std::optional<tensor> axis = s.constant_value(axis_in);
  const bool along_rows = batch_dims == 0 && axis && index_values(*axis).at(0) == 0;
  const output g = grad::to_dense(s, dy[0], "the gradient of a gather of a gather is dense",
                                  op.log_dense_fallback);
  if (!along_rows) {
    std::vector<output> dense;
    CAFLOW_RETURN_IF_ERROR(gather_grad(s, op, {g}, &dense));
    dx->assign(dense.begin(), dense.end());
    return {};
  }
  const partial_shape ps = s.shape_of(params);
  output dense_shape, row_shape;
  if (ps.fully_defined()) {
    std::vector<int64_t> dims;
    for (int d = 0; d < ps.rank(); ++d) dims.push_back(ps.dim(d));
    dense_shape = grad::index_vector(s, dims, dtype::int32);
    dims[0] = -1;
    row_shape = grad::index_vector(s, dims, dtype::int32);
  } else {
    dense_shape = ops::shape(s.colocate_with(params), params);
    row_shape = ops::concat(
        s, {grad::index_vector(s, {-1}, dtype::int32), ops::slice(s, dense_shape, {1}, {-1})}, 0);
  }
  *dx = {indexed_slices{ops::reshape(s, g, row_shape), ops::reshape(s, indices, {-1}), dense_shape},
         gradient_value{}, gradient_value{}};
  return {};
}

// data row j went to output row segment_ids[j]; rows with a negative id went nowhere and get
// zeros.
status unsorted_segment_sum_grad(const scope& s, const grad_op_info& op,
                                 const std::vector<output>& dy, std::vector<output>* dx) {
  const output &data = op.inputs[0], &ids = op.inputs[1];
  const output gathered = ops::gather(s, dy[0], ops::maximum(s, ids, ops::zeros_like(s, ids)));
  const output no_id =
      ids.type == dtype::int32 ? ops::constant(s, int32_t{-1}) : ops::constant(s, int64_t{-1});
  const output kept = ops::cast(s, ops::greater(s, ids, no_id), data.type);
  // kept, shaped to broadcast over the dims of data after those of the ids.
  const output trailing = ops::sub(s, ops::rank(s, data), ops::rank(s, ids));
  const output kept_shape = ops::concat(
      s, {grad::shape_of(s, ids), ops::fill(s, ops::reshape(s, trailing, {1}), int32_const(s, 1))},
      0);
  *dx = {ops::mul(s, gathered, ops::reshape(s, kept, kept_shape)), output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_SPARSE_GRADIENT("GatherV2", gather_sparse_grad);
CAFLOW_REGISTER_GRADIENT("UnsortedSegmentSum", unsorted_segment_sum_grad);

}  // namespace caflow
