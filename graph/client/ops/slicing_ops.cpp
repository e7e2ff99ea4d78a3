// Client functions of the ops that read or write parts of a tensor by index (registered in
// graph/ops/slicing_ops.cpp), declared in array_ops.hpp with the other array ops.
#include "graph/client/ops/array_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"

namespace caflow {
namespace ops {

using array_op_util::index_vector;
using array_op_util::int32_scalar;

output slice(const scope& s, const output& input, const output& begin, const output& size) {
  return node_builder(s, "Slice").input(input).input(begin).input(size).finalize().out();
}
output slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& size) {
  return slice(s, input, index_vector(s, begin), index_vector(s, size));
}

namespace {

// The five masks StridedSlice and its gradient share; then the node.
output with_masks(node_builder& b, const strided_slice_attrs& attrs) {
  return b.attr("begin_mask", attrs.begin_mask)
      .attr("end_mask", attrs.end_mask)
      .attr("ellipsis_mask", attrs.ellipsis_mask)
      .attr("new_axis_mask", attrs.new_axis_mask)
      .attr("shrink_axis_mask", attrs.shrink_axis_mask)
      .finalize()
      .out();
}

}  // namespace

output strided_slice(const scope& s, const output& input, const output& begin, const output& end,
                     const output& strides, const strided_slice_attrs& attrs) {
  node_builder b(s, "StridedSlice");
  return with_masks(b.input(input).input(begin).input(end).input(strides), attrs);
}
output strided_slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     const strided_slice_attrs& attrs) {
  return strided_slice(s, input, index_vector(s, begin), index_vector(s, end),
                       index_vector(s, strides), attrs);
}

output strided_slice_grad(const scope& s, const output& shape, const output& begin,
                          const output& end, const output& strides, const output& dy,
                          const strided_slice_attrs& attrs) {
  node_builder b(s, "StridedSliceGrad");
  return with_masks(b.input(shape).input(begin).input(end).input(strides).input(dy), attrs);
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

output unsorted_segment_sum(const scope& s, const output& data, const output& segment_ids,
                            const output& num_segments) {
  return node_builder(s, "UnsortedSegmentSum")
      .input(data)
      .input(segment_ids)
      .input(num_segments)
      .finalize()
      .out();
}

}  // namespace ops
}  // namespace caflow
