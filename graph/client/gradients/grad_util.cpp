#include "graph/client/gradients/grad_util.hpp"

#include <bitset>
#include <optional>

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/broadcast_reduction.hpp"
#include "graph/util/reduction_axes.hpp"

namespace caflow::grad {
namespace {

output int32_vector(const scope& s, const std::vector<int64_t>& v) {
  return index_vector(s, v, dtype::int32);
}

// The dims named by constant `axes` when x's rank is known.
status_or<std::optional<std::bitset<max_rank>>> known_axes(const scope& s, const output& x,
                                                           const output& axes) {
  const partial_shape shape = s.shape_of(x);
  const std::optional<tensor> value = s.constant_value(axes);
  if (!value || !shape.rank_known()) return std::optional<std::bitset<max_rank>>{};
  CAFLOW_ASSIGN_OR_RETURN(const auto reduced, reduction_axes(*value, shape.rank()));
  return std::optional<std::bitset<max_rank>>{reduced};
}

}  // namespace

output index_vector(const scope& s, const std::vector<int64_t>& values, dtype type) {
  const tensor_shape shape{static_cast<int64_t>(values.size())};
  if (type == dtype::int64) return ops::constant(s, values, shape);
  return ops::constant(s, std::vector<int32_t>(values.begin(), values.end()), shape);
}

output scalar(const scope& s, dtype type, double value) {
  return type == dtype::float32 ? ops::constant(s, static_cast<float>(value))
                                : ops::constant(s, value);
}

status conv2d_attrs_of(const grad_op_info& op, ops::conv2d_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("strides", &a->strides));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("padding", &a->padding));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &a->data_format));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("dilations", &a->dilations));
  return op.get_attr("explicit_paddings", &a->explicit_paddings);
}

output shape_of(const scope& s, const output& x, dtype type) {
  const partial_shape shape = s.shape_of(x);
  if (!shape.fully_defined()) return ops::shape(s, x, {.out_type = type});
  return index_vector(s, shape.dim_vector(), type);
}

status_or<output> axes_mask(const scope& s, const output& x, const output& axes) {
  CAFLOW_ASSIGN_OR_RETURN(const auto known, known_axes(s, x, axes));
  if (known) {
    std::vector<int64_t> mask(static_cast<size_t>(s.shape_of(x).rank()));
    for (size_t d = 0; d < mask.size(); ++d) mask[d] = (*known)[d] ? 1 : 0;
    return int32_vector(s, mask);
  }
  // Axes or rank known only at run time: wrap negative axes, then mark them with OneHot
  // (the forward op has rejected repeated and out-of-range axes).
  const output rank = ops::rank(s, x);
  output a = ops::reshape(s, ops::cast(s, axes, dtype::int32), {-1});
  const output negative = ops::cast(s, ops::less(s, a, ops::constant(s, int32_t{0})), dtype::int32);
  a = ops::add(s, a, ops::mul(s, rank, negative));
  const output one = ops::constant(s, int32_t{1}), zero = ops::constant(s, int32_t{0});
  return ops::sum(s, ops::one_hot(s, a, rank, one, zero), {0});
}

unbroadcast::unbroadcast(const scope& s, const output& x, const output& y) : s_(s) {
  const partial_shape sx = s.shape_of(x), sy = s.shape_of(y);
  if (sx.fully_defined() && sy.fully_defined()) {
    const std::vector<int64_t> dx = sx.dim_vector(), dy = sy.dim_vector();
    auto r = broadcast_gradient_reduction(dx, dy);
    if (r.ok()) {
      known_ = true;
      dims_[0] = std::move(r->r0);
      dims_[1] = std::move(r->r1);
      shapes_[0] = x;
      shapes_[1] = y;
      return;
    }
  }
  // Unknown shapes, or shapes that cannot broadcast (the forward op has failed already):
  // leave it to run time, where BroadcastGradientArgs names both shapes.
  shapes_[0] = ops::shape(s, x);
  shapes_[1] = ops::shape(s, y);
  const auto r = ops::broadcast_gradient_args(s, shapes_[0], shapes_[1]);
  dynamic_dims_[0] = r.r0;
  dynamic_dims_[1] = r.r1;
}

output unbroadcast::reduce(const output& g, int which) const {
  if (!known_) return ops::reshape(s_, ops::sum(s_, g, dynamic_dims_[which]), shapes_[which]);
  if (dims_[which].empty()) return g;
  const std::vector<int> axes(dims_[which].begin(), dims_[which].end());
  return ops::reshape(s_, ops::sum(s_, g, axes), shape_of(s_, shapes_[which]));
}

status_or<reduction_shapes> reduction_shapes_of(const scope& s, const output& x,
                                                const output& axes) {
  const partial_shape shape = s.shape_of(x);
  CAFLOW_ASSIGN_OR_RETURN(const auto known, known_axes(s, x, axes));
  if (known && shape.fully_defined()) {
    std::vector<int64_t> kept = shape.dim_vector(), multiples(shape.rank(), 1);
    for (int d = 0; d < shape.rank(); ++d)
      if ((*known)[d]) std::swap(kept[d], multiples[d]);
    return reduction_shapes{int32_vector(s, kept), int32_vector(s, multiples)};
  }
  CAFLOW_ASSIGN_OR_RETURN(const output reduce, axes_mask(s, x, axes));
  const output keep = ops::sub(s, ops::constant(s, int32_t{1}), reduce);
  const output dims = ops::shape(s, x);
  return reduction_shapes{ops::add(s, ops::mul(s, dims, keep), reduce),
                          ops::add(s, ops::mul(s, dims, reduce), keep)};
}

status_or<output> broadcast_to_input(const scope& s, const output& g, const output& x,
                                     const output& axes) {
  CAFLOW_ASSIGN_OR_RETURN(const reduction_shapes shapes, reduction_shapes_of(s, x, axes));
  return ops::tile(s, ops::reshape(s, g, shapes.kept), shapes.multiples);
}

}  // namespace caflow::grad
