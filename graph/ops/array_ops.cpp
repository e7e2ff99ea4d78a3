// Ops that rearrange whole tensors: Transpose, ConcatV2, Split, Tile, Pad, Unique (registrations
// and shape functions). The ops that read parts of a tensor by index are in slicing_ops.cpp.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/array_op_util.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

using array_op_util::dims_of;
using array_op_util::node_error;
using array_op_util::vector_length;

status transpose_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& x = c.input(0);
  int64_t rank = x.rank();
  const int64_t n = vector_length(c, 1);
  if (n >= 0 && rank >= 0 && n != rank)
    return c.error("perm has ", n, " entries but x has rank ", rank, " (shape ", x.to_string(),
                   ")");
  if (rank < 0) rank = n;
  if (rank < 0) return shape_fns::unknown(c);
  if (rank > max_rank) return c.error("perm has ", rank, " entries, more than the maximum rank");
  const tensor* perm_t = c.input_value(1);
  if (!perm_t) {
    c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(rank)));
    return {};
  }
  const std::vector<int64_t> perm = index_values(*perm_t);
  if (status st = check_permutation(perm, static_cast<int>(rank)); !st.ok())
    return node_error(c, st);
  const std::vector<int64_t> in = dims_of(x, static_cast<int>(rank));
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(in[p]);
  c.set_output(0, partial_shape(out));
  return {};
}

status concat_shape(shape_context& c) {
  const int n = c.num_inputs() - 1;
  CAFLOW_RETURN_IF_ERROR(c.require_rank(n, 0));
  int rank = -1, ranked = -1;
  for (int i = 0; i < n; ++i) {
    const partial_shape& s = c.input(i);
    if (!s.rank_known()) continue;
    if (rank < 0) {
      rank = s.rank();
      ranked = i;
    } else if (s.rank() != rank) {
      return c.error("all inputs must have the same rank, but values[", ranked, "] has shape ",
                     c.input(ranked).to_string(), " and values[", i, "] has shape ", s.to_string());
    }
  }
  if (rank == 0) return c.error("cannot concatenate scalars; use Pack to stack them");
  if (rank < 0) return shape_fns::unknown(c);
  const tensor* axis_t = c.input_value(n);
  if (!axis_t) {
    c.set_output(0, partial_shape::unknown_of_rank(rank));
    return {};
  }
  auto axis_or = canonical_axis(index_values(*axis_t)[0], rank, "concat axis");
  if (!axis_or.ok()) return node_error(c, axis_or.get_status());
  const int axis = *axis_or;
  std::vector<int64_t> out(rank, -1);
  int64_t total = 0;
  std::vector<int> first_known(rank, -1);  // which input fixed each dimension, for messages
  for (int i = 0; i < n; ++i) {
    const partial_shape& s = c.input(i);
    if (!s.rank_known()) {
      total = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      const int64_t v = s.dim(d);
      if (d == axis) {
        total = (total < 0 || v < 0) ? -1 : total + v;
      } else if (v >= 0) {
        if (out[d] < 0) {
          out[d] = v;
          first_known[d] = i;
        } else if (out[d] != v) {
          return c.error("dimension ", d, " of values[", i, "] (shape ", s.to_string(),
                         ") does not match values[", first_known[d], "] (shape ",
                         c.input(first_known[d]).to_string(), "); only dimension ", axis,
                         " may differ");
        }
      }
    }
  }
  out[axis] = total;
  c.set_output(0, partial_shape(out));
  return {};
}

status split_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  int64_t num_split = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("num_split", &num_split));
  const partial_shape& value = c.input(1);
  const tensor* dim_t = c.input_value(0);
  partial_shape out;
  if (value.rank_known() && !dim_t) {
    out = partial_shape::unknown_of_rank(value.rank());
  } else if (value.rank_known()) {
    auto axis_or = canonical_axis(dim_t->scalar_value<int32_t>(), value.rank(), "split_dim");
    if (!axis_or.ok()) return node_error(c, axis_or.get_status());
    std::vector<int64_t> dims = value.dim_vector();
    int64_t& size = dims[*axis_or];
    if (size >= 0 && size % num_split != 0)
      return c.error("num_split ", num_split, " does not evenly divide dimension ", *axis_or,
                     " of size ", size, " (value shape ", value.to_string(), ")");
    if (size >= 0) size /= num_split;
    out = partial_shape(dims);
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return {};
}

status tile_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& input = c.input(0);
  int64_t rank = input.rank();
  const int64_t n = vector_length(c, 1);
  if (rank >= 0 && n >= 0 && n != rank)
    return c.error("multiples has ", n, " entries but the input has rank ", rank, " (shape ",
                   input.to_string(), ")");
  if (rank < 0) rank = n;
  if (rank < 0) return shape_fns::unknown(c);
  if (rank > max_rank)
    return c.error("multiples has ", rank, " entries, more than the maximum rank");
  const tensor* mult_t = c.input_value(1);
  if (!mult_t) {
    c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(rank)));
    return {};
  }
  const std::vector<int64_t> mult = index_values(*mult_t);
  std::vector<int64_t> out = dims_of(input, static_cast<int>(rank));
  for (int i = 0; i < rank; ++i) {
    if (mult[i] < 0)
      return c.error("multiples[", i, "] = ", mult[i], " is negative; multiples ",
                     format_dims(mult));
    if (mult[i] == 0)
      out[i] = 0;
    else if (out[i] >= 0 && __builtin_mul_overflow(out[i], mult[i], &out[i]))
      return c.error("tiling dimension ", i, " ", mult[i], " times overflows int64");
  }
  c.set_output(0, partial_shape(out));
  return {};
}

status pad_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 2));
  const partial_shape& input = c.input(0);
  const partial_shape& pads = c.input(1);
  int64_t rank = input.rank();
  if (pads.rank_known()) {
    if (pads.dim(1) >= 0 && pads.dim(1) != 2)
      return c.error("paddings must have shape [rank,2], got shape ", pads.to_string());
    if (rank >= 0 && pads.dim(0) >= 0 && pads.dim(0) != rank)
      return c.error("paddings has shape ", pads.to_string(), " but the input has rank ", rank,
                     " (shape ", input.to_string(), "); expected [", rank, ",2]");
    if (rank < 0) rank = pads.dim(0);
  }
  if (rank < 0) return shape_fns::unknown(c);
  if (rank > max_rank) return c.error("paddings has ", rank, " rows, more than the maximum rank");
  const tensor* pad_t = c.input_value(1);
  if (!pad_t) {
    c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(rank)));
    return {};
  }
  const std::vector<int64_t> p = index_values(*pad_t);
  std::vector<int64_t> out = dims_of(input, static_cast<int>(rank));
  for (int i = 0; i < rank; ++i) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0)
      return c.error("paddings must be non-negative, but paddings[", i, "] = [", p[2 * i], ", ",
                     p[2 * i + 1], "]");
    if (out[i] >= 0 && (__builtin_add_overflow(out[i], p[2 * i], &out[i]) ||
                        __builtin_add_overflow(out[i], p[2 * i + 1], &out[i])))
      return c.error("padding dimension ", i, " by [", p[2 * i], ", ", p[2 * i + 1],
                     "] overflows int64");
  }
  c.set_output(0, partial_shape(out));
  return {};
}

// y holds as many values as x has distinct ones, known only at run time; idx maps x onto y.
status unique_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  c.set_output(0, partial_shape{-1});
  c.set_output(1, c.input(0).rank_known() ? c.input(0) : partial_shape{-1});
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Transpose")
    .input("x: T")
    .input("perm: Tperm")
    .output("y: T")
    .attr("T: type")
    .attr("Tperm: {int32, int64} = int32")
    .set_shape_fn(transpose_shape);
CAFLOW_REGISTER_OP("ConcatV2")
    .input("values: N * T")
    .input("axis: Tidx")
    .output("output: T")
    .attr("N: int >= 2")
    .attr("T: type")
    .attr("Tidx: {int32, int64} = int32")
    .set_shape_fn(concat_shape);
CAFLOW_REGISTER_OP("Split")
    .input("split_dim: int32")
    .input("value: T")
    .output("output: num_split * T")
    .attr("num_split: int >= 1")
    .attr("T: type")
    .set_shape_fn(split_shape);
CAFLOW_REGISTER_OP("Tile")
    .input("input: T")
    .input("multiples: Tmultiples")
    .output("output: T")
    .attr("T: type")
    .attr("Tmultiples: {int32, int64} = int32")
    .set_shape_fn(tile_shape);
CAFLOW_REGISTER_OP("Pad")
    .input("input: T")
    .input("paddings: Tpaddings")
    .output("output: T")
    .attr("T: type")
    .attr("Tpaddings: {int32, int64} = int32")
    .set_shape_fn(pad_shape);
CAFLOW_REGISTER_OP("Unique")
    .input("x: T")
    .output("y: T")
    .output("idx: out_idx")
    .attr("T: type")
    .attr("out_idx: {int32, int64} = int32")
    .set_shape_fn(unique_shape);

}  // namespace caflow
