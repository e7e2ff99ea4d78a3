// ReverseV2, Reverse, ReverseSequence, Roll, InvertPermutation, BroadcastTo and BroadcastArgs:
// registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/array_op_util.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/reverse_broadcast_rules.hpp"

namespace caflow {
namespace {

status reverse_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& x = c.input(0);
  if (const tensor* axis = c.input_value(1); axis && x.rank_known()) {
    auto dims = reverse_dims(index_values(*axis), x.rank());
    if (!dims.ok()) return c.error(dims.get_status().message());
  }
  c.set_output(0, x);
  return {};
}

status broadcast_to_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const tensor* shape_t = c.input_value(1);
  if (!shape_t) {
    const int64_t n = array_op_util::vector_length(c, 1);
    if (n > max_rank) return c.error("shape has ", n, " entries, above the maximum rank");
    c.set_output(0, n < 0 ? partial_shape::unknown()
                          : partial_shape::unknown_of_rank(static_cast<int>(n)));
    return {};
  }
  const std::vector<int64_t> target = index_values(*shape_t);
  if (target.size() > static_cast<size_t>(max_rank))
    return c.error("shape ", format_dims(target), " has more than ", max_rank, " dimensions");
  if (status st = check_broadcast_to(c.input(0), target); !st.ok()) return c.error(st.message());
  c.set_output(0, partial_shape(target));
  return {};
}

status reverse_sequence_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  int64_t seq_dim = 0, batch_dim = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("seq_dim", &seq_dim));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("batch_dim", &batch_dim));
  const partial_shape& x = c.input(0);
  if (x.rank_known()) {
    if (status st = check_reverse_sequence_dims(x, seq_dim, batch_dim); !st.ok())
      return c.error(st.message());
    const partial_shape& lens = c.input(1);
    if (lens.rank_known() && lens.dim(0) >= 0 && x.dim(static_cast<int>(batch_dim)) >= 0 &&
        lens.dim(0) != x.dim(static_cast<int>(batch_dim)))
      return c.error("seq_lengths has ", lens.dim(0), " entries but dimension batch_dim = ",
                     batch_dim, " of input ", x.to_string(), " has size ",
                     x.dim(static_cast<int>(batch_dim)));
  }
  c.set_output(0, x);
  return {};
}

status reverse_v1_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape &x = c.input(0), &dims = c.input(1);
  if (x.rank_known() && dims.rank_known() && dims.dim(0) >= 0 && dims.dim(0) != x.rank())
    return c.error("dims has ", dims.dim(0), " entries but tensor has rank ", x.rank(),
                   " (shape ", x.to_string(), ")");
  c.set_output(0, x);
  return {};
}

status roll_shape(shape_context& c) {
  const partial_shape &shift = c.input(1), &axis = c.input(2);
  for (int i : {1, 2})
    if (c.input(i).rank_known() && c.input(i).rank() > 1)
      return c.error(i == 1 ? "shift" : "axis", " must be a scalar or a vector, got shape ",
                     c.input(i).to_string());
  const int64_t ns = shift.rank_known() ? (shift.rank() == 0 ? 1 : shift.dim(0)) : -1;
  const int64_t na = axis.rank_known() ? (axis.rank() == 0 ? 1 : axis.dim(0)) : -1;
  if (ns >= 0 && na >= 0 && ns != na)
    return c.error("shift has shape ", shift.to_string(), " and axis has shape ",
                   axis.to_string(), "; they must have one length");
  c.set_output(0, c.input(0));
  return {};
}

status invert_permutation_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  c.set_output(0, c.input(0).rank_known() ? c.input(0) : partial_shape{-1});
  return {};
}

status broadcast_args_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const tensor *a = c.input_value(0), *b = c.input_value(1);
  if (a && b) {
    auto s = broadcast_shapes(partial_shape(index_values(*a)), partial_shape(index_values(*b)));
    if (!s.ok()) return c.error(s.get_status().message());
    c.set_output(0, partial_shape{s->rank()});
    return {};
  }
  const int64_t n0 = array_op_util::vector_length(c, 0), n1 = array_op_util::vector_length(c, 1);
  c.set_output(0, partial_shape{n0 >= 0 && n1 >= 0 ? std::max(n0, n1) : -1});
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("ReverseSequence")
    .input("input: T")
    .input("seq_lengths: Tlen")
    .output("output: T")
    .attr("seq_dim: int")
    .attr("batch_dim: int = 0")
    .attr("T: type")
    .attr("Tlen: {int32, int64} = int64")
    .set_shape_fn(reverse_sequence_shape);
CAFLOW_REGISTER_OP("Reverse")
    .input("tensor: T")
    .input("dims: bool")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(reverse_v1_shape);
CAFLOW_REGISTER_OP("Roll")
    .input("input: T")
    .input("shift: Tshift")
    .input("axis: Taxis")
    .output("output: T")
    .attr("T: type")
    .attr("Tshift: {int32, int64}")
    .attr("Taxis: {int32, int64}")
    .set_shape_fn(roll_shape);
CAFLOW_REGISTER_OP("InvertPermutation")
    .input("x: T")
    .output("y: T")
    .attr("T: {int32, int64} = int32")
    .set_shape_fn(invert_permutation_shape);
CAFLOW_REGISTER_OP("BroadcastArgs")
    .input("s0: T")
    .input("s1: T")
    .output("r0: T")
    .attr("T: {int32, int64} = int32")
    .set_shape_fn(broadcast_args_shape);

CAFLOW_REGISTER_OP("ReverseV2")
    .input("tensor: T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("Tidx: {int32, int64} = int32")
    .attr("T: type")
    .set_shape_fn(reverse_shape);
CAFLOW_REGISTER_OP("BroadcastTo")
    .input("input: T")
    .input("shape: Tidx")
    .output("output: T")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = int32")
    .set_shape_fn(broadcast_to_shape);

}  // namespace caflow
