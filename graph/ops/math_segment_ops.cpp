// The sorted segment reductions SegmentSum, SegmentMean, SegmentMax and SegmentMin:
// registrations and shape function.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// [num_segments, data.shape[1:]...]: num_segments is segment_ids[-1] + 1 when the ids are a
// constant, else unknown. segment_ids must be a vector as long as data's first dimension.
status segment_reduction_shape(shape_context& c) {
  const partial_shape& data = c.input(0);
  const partial_shape& ids = c.input(1);
  if (ids.rank_known() && ids.rank() != 1)
    return c.error("segment_ids must be a vector, got shape ", ids.to_string());
  if (data.rank_known() && data.rank() == 0)
    return c.error("data must have at least one dimension, got a scalar");
  if (data.rank_known() && ids.rank_known() && data.dim(0) >= 0 && ids.dim(0) >= 0 &&
      data.dim(0) != ids.dim(0))
    return c.error("segment_ids of shape ", ids.to_string(),
                   " must be as long as the first dimension of data ", data.to_string());
  if (!data.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  std::vector<int64_t> dims = data.dim_vector();
  dims[0] = -1;
  if (const tensor* v = c.input_value(1); v != nullptr) {
    const int64_t n = v->num_elements();
    if (n == 0) dims[0] = 0;
    else if (v->type() == dtype::int32) dims[0] = int64_t{v->data<int32_t>()[n - 1]} + 1;
    else dims[0] = v->data<int64_t>()[n - 1] + 1;
    if (dims[0] < 0) return c.error("segment_ids must be non-negative, got ", dims[0] - 1);
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

}  // namespace

#define CAFLOW_SEGMENT_OP(name)                                                      \
  CAFLOW_REGISTER_OP(name).input("data: T").input("segment_ids: Tindices")            \
      .output("output: T").attr("T: {float32, float64, int32, int64, uint8}")        \
      .attr("Tindices: {int32, int64}").set_shape_fn(segment_reduction_shape)
CAFLOW_SEGMENT_OP("SegmentSum");
CAFLOW_SEGMENT_OP("SegmentMax");
CAFLOW_SEGMENT_OP("SegmentMin");
#undef CAFLOW_SEGMENT_OP
CAFLOW_REGISTER_OP("SegmentMean").input("data: T").input("segment_ids: Tindices")
    .output("output: T").attr("T: {float32, float64}").attr("Tindices: {int32, int64}")
    .set_shape_fn(segment_reduction_shape);

}  // namespace caflow
