// Ops that read or write parts of a tensor by index: Slice, StridedSlice (and its gradient
// StridedSliceGrad), GatherV2, UnsortedSegmentSum: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/array_op_util.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

using array_op_util::dims_of;
using array_op_util::node_error;
using array_op_util::vector_length;

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
    if (d < 0) return c.error("shape ", format_dims(dims), " has a negative dimension");
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

}  // namespace

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
CAFLOW_REGISTER_OP("UnsortedSegmentSum")
    .input("data: T")
    .input("segment_ids: Tindices")
    .input("num_segments: Tnumsegments")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}")
    .attr("Tnumsegments: {int32, int64} = int32")
    .set_shape_fn(unsorted_segment_sum_shape);

}  // namespace caflow
