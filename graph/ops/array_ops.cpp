#include "graph/ops/array_ops.hpp"

#include "graph/node_builder.hpp"
#include "graph/ops/array_index_util.hpp"
#include "graph/ops/base_ops.hpp"
#include "graph/shape_inference.hpp"

namespace caflow {
namespace {

// An error from the shared index rules, prefixed with the node and keeping its code.
status node_error(const shape_context& c, const status& st) {
  return st.with_context(describe_node(c.node()));
}

// The length of a vector input when its shape says so, else -1.
int64_t vector_length(const shape_context& c, int i) {
  const partial_shape& s = c.input(i);
  return s.rank_known() && s.rank() == 1 ? s.dim(0) : -1;
}

std::vector<int64_t> dims_of(const partial_shape& s, int rank) {
  return s.rank_known() ? s.dim_vector() : std::vector<int64_t>(rank, -1);
}

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

status slice_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 1));
  const partial_shape& input = c.input(0);
  const int64_t nb = vector_length(c, 1), ns = vector_length(c, 2);
  if (nb >= 0 && ns >= 0 && nb != ns)
    return c.error("begin has ", nb, " entries but size has ", ns);
  int64_t rank = input.rank();
  const int64_t n = nb >= 0 ? nb : ns;
  if (rank >= 0 && n >= 0 && n != rank)
    return c.error("begin and size have ", n, " entries but the input has rank ", rank, " (shape ",
                   input.to_string(), ")");
  if (rank < 0) rank = n;
  if (rank < 0) return shape_fns::unknown(c);
  if (rank > max_rank) return c.error("begin has ", rank, " entries, more than the maximum rank");
  const tensor* begin_t = c.input_value(1);
  const tensor* size_t_ = c.input_value(2);
  if (!size_t_) {
    c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(rank)));
    return {};
  }
  const std::vector<int64_t> in = dims_of(input, static_cast<int>(rank));
  const std::vector<int64_t> size = index_values(*size_t_);
  std::vector<int64_t> begin;
  if (begin_t) begin = index_values(*begin_t);
  std::vector<int64_t> out(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = in[i], b = begin_t ? begin[i] : -1;
    if (size[i] < -1) return c.error("size[", i, "] = ", size[i], " is negative");
    if (begin_t && b < 0) return c.error("begin[", i, "] = ", b, " is negative");
    if (dim >= 0 && b > dim)
      return c.error("begin[", i, "] = ", b, " is out of range [0, ", dim, "] for input shape ",
                     input.to_string());
    if (size[i] >= 0) {
      if (dim >= 0 && b >= 0 && size[i] > dim - b)
        return c.error("size[", i, "] = ", size[i], " is out of range [0, ", dim - b,
                       "] (or -1) for begin[", i, "] = ", b, " and input shape ",
                       input.to_string());
      out[i] = size[i];
    } else if (dim >= 0 && b >= 0) {
      out[i] = dim - b;
    }
  }
  c.set_output(0, partial_shape(out));
  return {};
}

status strided_slice_shape(shape_context& c) {
  for (int i = 1; i <= 3; ++i) CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 1));
  strided_slice_masks m;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("begin_mask", &m.begin_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("end_mask", &m.end_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("ellipsis_mask", &m.ellipsis_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("new_axis_mask", &m.new_axis_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shrink_axis_mask", &m.shrink_axis_mask));
  const tensor* strides_t = c.input_value(3);
  // Without the strides (and the input's rank) not even the output's rank is known.
  if (!c.input(0).rank_known() || !strides_t) return shape_fns::unknown(c);
  const std::vector<int64_t> strides = index_values(*strides_t);
  std::vector<int64_t> begin, end;
  if (c.input_value(1)) begin = index_values(*c.input_value(1));
  if (c.input_value(2)) end = index_values(*c.input_value(2));
  auto spec = resolve_strided_slice(c.input(0), c.input_value(1) ? &begin : nullptr,
                                    c.input_value(2) ? &end : nullptr, strides, m);
  if (!spec.ok()) return node_error(c, spec.get_status());
  c.set_output(0, spec->final_shape);
  return {};
}

// batch_dims as a count of leading dims of indices, or -1 when it is negative and indices'
// rank is unknown; errors when it is out of [-rank(indices), rank(indices)].
status_or<int64_t> gather_batch_dims(const shape_context& c, int64_t batch_dims) {
  const partial_shape& indices = c.input(1);
  if (!indices.rank_known()) return batch_dims < 0 ? int64_t{-1} : batch_dims;
  const int64_t r = indices.rank();
  if (batch_dims < -r || batch_dims > r)
    return c.error("batch_dims ", batch_dims, " is out of range [", -r, ", ", r,
                   "] for indices of shape ", indices.to_string());
  return batch_dims < 0 ? batch_dims + r : batch_dims;
}

status gather_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 1));
  int64_t batch_attr = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("batch_dims", &batch_attr));
  CAFLOW_ASSIGN_OR_RETURN(const int64_t batch_dims, gather_batch_dims(c, batch_attr));
  const partial_shape& params = c.input(0);
  const partial_shape& indices = c.input(1);
  if (params.rank_known() && batch_dims >= params.rank())
    return c.error("batch_dims ", batch_dims, " must be less than the rank of params ",
                   params.to_string());
  if (params.rank_known() && indices.rank_known())
    for (int d = 0; d < batch_dims; ++d)
      if (params.dim(d) >= 0 && indices.dim(d) >= 0 && params.dim(d) != indices.dim(d))
        return c.error("batch dimension ", d, " of params ", params.to_string(), " and indices ",
                       indices.to_string(), " differ (batch_dims ", batch_dims, ")");
  if (!params.rank_known() || !indices.rank_known()) return shape_fns::unknown(c);
  const int rank = params.rank() - 1 + indices.rank() - static_cast<int>(batch_dims);
  if (rank > max_rank)
    return c.error("gathering ", indices.to_string(), " indices from ", params.to_string(),
                   " would exceed the maximum rank ", max_rank);
  const tensor* axis_t = c.input_value(2);
  if (!axis_t) {
    c.set_output(0, partial_shape::unknown_of_rank(rank));
    return {};
  }
  auto axis_or = canonical_axis(index_values(*axis_t)[0], params.rank(), "axis");
  if (!axis_or.ok()) return node_error(c, axis_or.get_status());
  if (*axis_or < batch_dims)
    return c.error("axis ", *axis_or, " must not be less than batch_dims ", batch_dims);
  std::vector<int64_t> out;
  for (int d = 0; d < *axis_or; ++d) {
    // A batch dim known on one side only is known for both.
    const int64_t known = d < batch_dims && params.dim(d) < 0 ? indices.dim(d) : params.dim(d);
    out.push_back(known);
  }
  for (int d = static_cast<int>(batch_dims); d < indices.rank(); ++d) out.push_back(indices.dim(d));
  for (int d = *axis_or + 1; d < params.rank(); ++d) out.push_back(params.dim(d));
  c.set_output(0, partial_shape(out));
  return {};
}

// The input's shape is the value of `shape`; dy must have the slice's shape.
status strided_slice_grad_shape(shape_context& c) {
  for (int i = 0; i <= 3; ++i) CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 1));
  const tensor* shape_t = c.input_value(0);
  if (!shape_t) {
    const int64_t n = vector_length(c, 0);
    if (n > max_rank) return c.error("shape has ", n, " entries, more than the maximum rank");
    c.set_output(
        0, n >= 0 ? partial_shape::unknown_of_rank(static_cast<int>(n)) : partial_shape::unknown());
    return {};
  }
  const std::vector<int64_t> dims = index_values(*shape_t);
  auto shape_or = partial_shape::make(dims);
  if (!shape_or.ok()) return node_error(c, shape_or.get_status());
  for (int64_t d : dims)
    if (d < 0) return c.error("shape ", format_indices(dims), " has a negative dimension");
  c.set_output(0, *shape_or);
  const tensor* strides_t = c.input_value(3);
  if (!strides_t) return {};
  strided_slice_masks m;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("begin_mask", &m.begin_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("end_mask", &m.end_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("ellipsis_mask", &m.ellipsis_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("new_axis_mask", &m.new_axis_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shrink_axis_mask", &m.shrink_axis_mask));
  std::vector<int64_t> begin, end;
  if (c.input_value(1)) begin = index_values(*c.input_value(1));
  if (c.input_value(2)) end = index_values(*c.input_value(2));
  auto spec = resolve_strided_slice(*shape_or, c.input_value(1) ? &begin : nullptr,
                                    c.input_value(2) ? &end : nullptr, index_values(*strides_t), m);
  if (!spec.ok()) return node_error(c, spec.get_status());
  if (!spec->final_shape.compatible_with(c.input(4)))
    return c.error("dy has shape ", c.input(4).to_string(), " but the slice of shape ",
                   shape_or->to_string(), " has shape ", spec->final_shape.to_string());
  return {};
}

// segment_ids' shape is a prefix of data's; the output replaces that prefix with
// [num_segments].
status unsorted_segment_sum_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  const partial_shape& data = c.input(0);
  const partial_shape& ids = c.input(1);
  if (data.rank_known() && ids.rank_known()) {
    bool prefix = ids.rank() <= data.rank();
    for (int d = 0; prefix && d < ids.rank(); ++d)
      prefix = ids.dim(d) < 0 || data.dim(d) < 0 || ids.dim(d) == data.dim(d);
    if (!prefix)
      return c.error("segment_ids of shape ", ids.to_string(),
                     " must be a prefix of the shape of data ", data.to_string());
  }
  int64_t num = -1;
  if (const tensor* n = c.input_value(2)) {
    num = index_values(*n)[0];
    if (num < 0) return c.error("num_segments ", num, " is negative");
  }
  if (!data.rank_known() || !ids.rank_known()) return shape_fns::unknown(c);
  std::vector<int64_t> out = {num};
  for (int d = ids.rank(); d < data.rank(); ++d) out.push_back(data.dim(d));
  c.set_output(0, partial_shape(out));
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
                     format_indices(mult));
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
CAFLOW_REGISTER_OP("Slice")
    .input("input: T")
    .input("begin: Index")
    .input("size: Index")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int32, int64}")
    .set_shape_fn(slice_shape);
CAFLOW_REGISTER_OP("StridedSlice")
    .input("input: T")
    .input("begin: Index")
    .input("end: Index")
    .input("strides: Index")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int32, int64}")
    .attr("begin_mask: int = 0")
    .attr("end_mask: int = 0")
    .attr("ellipsis_mask: int = 0")
    .attr("new_axis_mask: int = 0")
    .attr("shrink_axis_mask: int = 0")
    .set_shape_fn(strided_slice_shape);
CAFLOW_REGISTER_OP("GatherV2")
    .input("params: Tparams")
    .input("indices: Tindices")
    .input("axis: Taxis")
    .output("output: Tparams")
    .attr("batch_dims: int = 0")
    .attr("Tparams: type")
    .attr("Tindices: {int32, int64}")
    .attr("Taxis: {int32, int64}")
    .set_shape_fn(gather_shape);
CAFLOW_REGISTER_OP("StridedSliceGrad")
    .input("shape: Index")
    .input("begin: Index")
    .input("end: Index")
    .input("strides: Index")
    .input("dy: T")
    .output("output: T")
    .attr("T: type")
    .attr("Index: {int32, int64}")
    .attr("begin_mask: int = 0")
    .attr("end_mask: int = 0")
    .attr("ellipsis_mask: int = 0")
    .attr("new_axis_mask: int = 0")
    .attr("shrink_axis_mask: int = 0")
    .set_shape_fn(strided_slice_grad_shape);
CAFLOW_REGISTER_OP("UnsortedSegmentSum")
    .input("data: T")
    .input("segment_ids: Tindices")
    .input("num_segments: Tnumsegments")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}")
    .attr("Tnumsegments: {int32, int64} = int32")
    .set_shape_fn(unsorted_segment_sum_shape);
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

namespace ops {
namespace {

// Index constants for the integer overloads. They are named like any Const of the caller's
// name scope, not after the op: a with_op_name scope names the op itself.
output index_constant(const scope& s, const std::vector<int64_t>& values,
                      const tensor_shape& shape) {
  return constant(s.new_sub_scope(""), tensor::from_vector<int64_t>(values, shape));
}

output index_vector(const scope& s, const std::vector<int64_t>& values) {
  return index_constant(s, values, tensor_shape{static_cast<int64_t>(values.size())});
}

output int32_scalar(const scope& s, int value) {
  return constant(s.new_sub_scope(""), tensor::scalar<int32_t>(value));
}

}  // namespace

output transpose(const scope& s, const output& x, const output& perm) {
  return node_builder(s, "Transpose").input(x).input(perm).finalize().out();
}
output transpose(const scope& s, const output& x, const std::vector<int>& perm) {
  const auto p = tensor::from_vector<int32_t>(std::vector<int32_t>(perm.begin(), perm.end()));
  return transpose(s, x, constant(s.new_sub_scope(""), p));
}

output concat(const scope& s, const std::vector<output>& values, const output& axis) {
  return node_builder(s, "ConcatV2").input_list(values).input(axis).finalize().out();
}
output concat(const scope& s, const std::vector<output>& values, int axis) {
  return concat(s, values, int32_scalar(s, axis));
}

std::vector<output> split(const scope& s, const output& axis, const output& value, int num_split) {
  const operation op =
      node_builder(s, "Split").input(axis).input(value).attr("num_split", num_split).finalize();
  // On failure the scope holds the error; the invalid outputs keep indexing safe.
  std::vector<output> parts;
  for (int i = 0; i < num_split; ++i) parts.push_back(op.out(i));
  return parts;
}
std::vector<output> split(const scope& s, int axis, const output& value, int num_split) {
  return split(s, int32_scalar(s, axis), value, num_split);
}

output slice(const scope& s, const output& input, const output& begin, const output& size) {
  return node_builder(s, "Slice").input(input).input(begin).input(size).finalize().out();
}
output slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& size) {
  return slice(s, input, index_vector(s, begin), index_vector(s, size));
}

output strided_slice(const scope& s, const output& input, const output& begin, const output& end,
                     const output& strides, const strided_slice_attrs& attrs) {
  return node_builder(s, "StridedSlice")
      .input(input)
      .input(begin)
      .input(end)
      .input(strides)
      .attr("begin_mask", attrs.begin_mask)
      .attr("end_mask", attrs.end_mask)
      .attr("ellipsis_mask", attrs.ellipsis_mask)
      .attr("new_axis_mask", attrs.new_axis_mask)
      .attr("shrink_axis_mask", attrs.shrink_axis_mask)
      .finalize()
      .out();
}
output strided_slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     const strided_slice_attrs& attrs) {
  return strided_slice(s, input, index_vector(s, begin), index_vector(s, end),
                       index_vector(s, strides), attrs);
}

output gather(const scope& s, const output& params, const output& indices, const output& axis,
              const gather_attrs& attrs) {
  return node_builder(s, "GatherV2")
      .input(params)
      .input(indices)
      .input(axis)
      .attr("batch_dims", attrs.batch_dims)
      .finalize()
      .out();
}
output gather(const scope& s, const output& params, const output& indices, int axis,
              const gather_attrs& attrs) {
  return gather(s, params, indices, int32_scalar(s, axis), attrs);
}

output strided_slice_grad(const scope& s, const output& shape, const output& begin,
                          const output& end, const output& strides, const output& dy,
                          const strided_slice_attrs& attrs) {
  return node_builder(s, "StridedSliceGrad")
      .input(shape)
      .input(begin)
      .input(end)
      .input(strides)
      .input(dy)
      .attr("begin_mask", attrs.begin_mask)
      .attr("end_mask", attrs.end_mask)
      .attr("ellipsis_mask", attrs.ellipsis_mask)
      .attr("new_axis_mask", attrs.new_axis_mask)
      .attr("shrink_axis_mask", attrs.shrink_axis_mask)
      .finalize()
      .out();
}

output unsorted_segment_sum(const scope& s, const output& data, const output& segment_ids,
                            const output& num_segments) {
  return node_builder(s, "UnsortedSegmentSum")
      .input(data)
      .input(segment_ids)
      .input(num_segments)
      .finalize()
      .out();
}

output tile(const scope& s, const output& input, const output& multiples) {
  return node_builder(s, "Tile").input(input).input(multiples).finalize().out();
}
output tile(const scope& s, const output& input, const std::vector<int64_t>& multiples) {
  return tile(s, input, index_vector(s, multiples));
}

output pad(const scope& s, const output& input, const output& paddings) {
  return node_builder(s, "Pad").input(input).input(paddings).finalize().out();
}
output pad(const scope& s, const output& input,
           const std::vector<std::array<int64_t, 2>>& paddings) {
  std::vector<int64_t> flat;
  for (const auto& p : paddings) flat.insert(flat.end(), p.begin(), p.end());
  return pad(s, input,
             index_constant(s, flat, tensor_shape{static_cast<int64_t>(paddings.size()), 2}));
}

}  // namespace ops
}  // namespace caflow
