// Gradients of the ops that move elements without computing on them (graph/client/ops/array_ops.hpp,
// graph/client/ops/shape_ops.hpp; GatherV2 in gather_grad.cpp): each routes the incoming gradient back to
// where the elements came from. Index, shape and axis inputs get no gradient.
#include <array>
#include <numeric>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// Passes sparse gradients on as they are (TF's _IdGrad): a variable read through an Identity
// still gets IndexedSlices from a gather.
status identity_grad(const scope&, const grad_op_info&, const std::vector<gradient_value>& dy,
                     std::vector<gradient_value>* dx) {
  *dx = {dy[0]};
  return {};
}

// Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back; the second input
// (shape or axis), where there is one, gets none.
status reshape_like_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                         grad_list* dx) {
  dx->assign(op.inputs.size(), output{});
  (*dx)[0] = ops::reshape(s, dy[0], grad::shape_of(s, op.inputs[0]));
  return {};
}

// Transposing back by the inverse permutation. A permutation known only at run time is
// inverted as ArgMax over the columns of its one-hot matrix: column j has its 1 in the row i
// with perm[i] == j.
status transpose_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output& perm = op.inputs[1];
  output inverse;
  if (const auto value = s.constant_value(perm)) {
    const std::vector<int64_t> p = index_values(*value);
    std::vector<int> inv(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] < 0 || p[i] >= static_cast<int64_t>(p.size()))
        return errors::invalid_argument("perm ", format_dims(p), " is not a permutation");
      inv[static_cast<size_t>(p[i])] = static_cast<int>(i);
    }
    *dx = {ops::transpose(s, dy[0], inv), output{}};
    return {};
  }
  const output n = ops::size(s, perm);
  const output one_hot =
      ops::one_hot(s, perm, n, ops::constant(s, int32_t{1}), ops::constant(s, int32_t{0}));
  *dx = {ops::transpose(s, dy[0], ops::arg_max(s, one_hot, 0)), output{}};
  return {};
}

// Each input gets its slice of the gradient along the axis.
status concat_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const size_t n = op.inputs.size() - 1;
  const output& axis = op.inputs[n];
  dx->assign(op.inputs.size(), output{});
  // Constant offsets when every input's shape is known.
  const std::optional<tensor> axis_value = s.constant_value(axis);
  bool known = axis_value.has_value();
  for (size_t i = 0; i < n && known; ++i) known = s.shape_of(op.inputs[i]).fully_defined();
  if (known) {
    const int rank = s.shape_of(op.inputs[0]).rank();
    CAFLOW_ASSIGN_OR_RETURN(const int a,
                            canonical_axis(index_values(*axis_value).at(0), rank, "axis"));
    std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < n; ++i) {
      const std::vector<int64_t> size = s.shape_of(op.inputs[i]).dim_vector();
      (*dx)[i] = ops::slice(s, dy[0], begin, size);
      begin[a] += size[a];
    }
    return {};
  }
  CAFLOW_ASSIGN_OR_RETURN(const output mask, grad::axes_mask(s, op.inputs[0], axis));
  output offset = ops::zeros_like(s, mask);
  for (size_t i = 0; i < n; ++i) {
    const output size = grad::shape_of(s, op.inputs[i]);
    (*dx)[i] = ops::slice(s, dy[0], ops::mul(s, offset, mask), size);
    if (i + 1 < n) offset = ops::add(s, offset, size);
  }
  return {};
}

status split_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {output{}, dy.size() == 1 ? dy[0] : ops::concat(s, dy, op.inputs[0])};
  return {};
}

// Slice: the gradient padded with zeros back to the input's shape.
status slice_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &begin = op.inputs[1], &y = op.outputs[0];
  const partial_shape sx = s.shape_of(x), sy = s.shape_of(y);
  const std::optional<tensor> begin_value = s.constant_value(begin);
  output padded;
  if (begin_value && sx.fully_defined() && sy.fully_defined()) {
    const std::vector<int64_t> b = index_values(*begin_value);
    std::vector<std::array<int64_t, 2>> paddings;
    for (int d = 0; d < sx.rank(); ++d) paddings.push_back({b[d], sx.dim(d) - b[d] - sy.dim(d)});
    padded = ops::pad(s, dy[0], paddings);
  } else {
    const output after = ops::sub(s, ops::sub(s, grad::shape_of(s, x, begin.type), begin),
                                  grad::shape_of(s, y, begin.type));
    padded = ops::pad(s, dy[0], ops::pack(s, {begin, after}, {.axis = 1}));
  }
  *dx = {padded, output{}, output{}};
  return {};
}

// Pad: the gradient's middle, where the input went.
status pad_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &paddings = op.inputs[1];
  output begin;
  if (const auto value = s.constant_value(paddings)) {
    const std::vector<int64_t> p = index_values(*value);
    std::vector<int64_t> b;
    for (size_t i = 0; i < p.size(); i += 2) b.push_back(p[i]);
    begin = grad::index_vector(s, b, paddings.type);
  } else {
    begin = ops::reshape(s, ops::slice(s, paddings, {0, 0}, {-1, 1}), {-1});
  }
  *dx = {ops::slice(s, dy[0], begin, grad::shape_of(s, x, paddings.type)), output{}};
  return {};
}

// Tile: seen as [m0, d0, m1, d1, ...], the output holds m_i copies along each dim; summing
// over the copies (the even dims) gives the input's gradient.
status tile_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const output &x = op.inputs[0], &multiples = op.inputs[1];
  const partial_shape sx = s.shape_of(x);
  const std::optional<tensor> m = s.constant_value(multiples);
  output split_shape;
  if (m && sx.fully_defined()) {
    const std::vector<int64_t> mv = index_values(*m);
    std::vector<int64_t> dims;
    for (int d = 0; d < sx.rank(); ++d) dims.insert(dims.end(), {mv[d], sx.dim(d)});
    split_shape = grad::index_vector(s, dims, dtype::int64);
  } else {
    const output pairs =
        ops::pack(s, {multiples, grad::shape_of(s, x, multiples.type)}, {.axis = 1});
    split_shape = ops::reshape(s, pairs, {-1});
  }
  output copies;
  if (sx.rank_known()) {
    std::vector<int> even(static_cast<size_t>(sx.rank()));
    for (int d = 0; d < sx.rank(); ++d) even[d] = 2 * d;
    copies = ops::constant(s, even, tensor_shape{sx.rank()});
  } else {
    const output two = ops::constant(s, int32_t{2});
    copies = ops::range(s, ops::constant(s, int32_t{0}), ops::mul(s, ops::rank(s, x), two), two);
  }
  *dx = {ops::sum(s, ops::reshape(s, dy[0], split_shape), copies), output{}};
  return {};
}

status pack_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  int64_t axis = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("axis", &axis));
  *dx = ops::unpack(s, dy[0], static_cast<int64_t>(op.inputs.size()), {.axis = axis});
  return {};
}

status unpack_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  int64_t axis = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("axis", &axis));
  // No outputs: the input has no elements along the axis.
  *dx = {dy.empty() ? ops::zeros_like(s, op.inputs[0]) : ops::pack(s, dy, {.axis = axis})};
  return {};
}

// Fill: the scalar went everywhere, so its gradient is the sum of all of dy.
status fill_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const partial_shape sy = s.shape_of(op.outputs[0]);
  output all;
  if (sy.rank_known()) {
    std::vector<int> axes(static_cast<size_t>(sy.rank()));
    std::iota(axes.begin(), axes.end(), 0);
    all = ops::constant(s, axes, tensor_shape{sy.rank()});
  } else {
    all = ops::range(s, ops::constant(s, int32_t{0}), ops::rank(s, dy[0]),
                     ops::constant(s, int32_t{1}));
  }
  *dx = {output{}, ops::sum(s, dy[0], all)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_SPARSE_GRADIENT("Identity", identity_grad);
CAFLOW_REGISTER_SPARSE_GRADIENT("PlaceholderWithDefault", identity_grad);
CAFLOW_REGISTER_GRADIENT("Reshape", reshape_like_grad);
CAFLOW_REGISTER_GRADIENT("ExpandDims", reshape_like_grad);
CAFLOW_REGISTER_GRADIENT("Squeeze", reshape_like_grad);
CAFLOW_REGISTER_GRADIENT("Transpose", transpose_grad);
CAFLOW_REGISTER_GRADIENT("ConcatV2", concat_grad);
CAFLOW_REGISTER_GRADIENT("Split", split_grad);
CAFLOW_REGISTER_GRADIENT("Slice", slice_grad);
CAFLOW_REGISTER_GRADIENT("Pad", pad_grad);
CAFLOW_REGISTER_GRADIENT("Tile", tile_grad);
CAFLOW_REGISTER_GRADIENT("Pack", pack_grad);
CAFLOW_REGISTER_GRADIENT("Unpack", unpack_grad);
CAFLOW_REGISTER_GRADIENT("Fill", fill_grad);
// Outputs that depend only on shapes, or on nothing differentiable.
CAFLOW_REGISTER_NO_GRADIENT("Shape");
CAFLOW_REGISTER_NO_GRADIENT("Size");
CAFLOW_REGISTER_NO_GRADIENT("Rank");
CAFLOW_REGISTER_NO_GRADIENT("ZerosLike");
CAFLOW_REGISTER_NO_GRADIENT("OnesLike");
CAFLOW_REGISTER_NO_GRADIENT("OneHot");
CAFLOW_REGISTER_NO_GRADIENT("Range");
CAFLOW_REGISTER_NO_GRADIENT("Const");
CAFLOW_REGISTER_NO_GRADIENT("Placeholder");
CAFLOW_REGISTER_NO_GRADIENT("RandomUniform");
CAFLOW_REGISTER_NO_GRADIENT("RandomStandardNormal");
CAFLOW_REGISTER_NO_GRADIENT("TruncatedNormal");

}  // namespace caflow
