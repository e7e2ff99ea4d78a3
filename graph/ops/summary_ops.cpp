// ScalarSummary, HistogramSummary, TensorSummary, TensorSummaryV2 and MergeSummary, as TF 1.x
// declares them: each outputs one serialized Summary protocol buffer in a string scalar, which a
// client hands to an event writer (graph/tf/summary_writer.hpp).
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status scalar_output(shape_context& c) {
  c.set_output(0, partial_shape(tensor_shape{}));
  return {};
}

// tags and values have the same shape, one tag per value.
status scalar_summary_shape(shape_context& c) {
  if (c.input(0).rank_known() && c.input(1).rank_known() && !c.input(0).merge(c.input(1)).ok())
    return c.error("tags and values must have the same shape, not ", c.input(0).to_string(),
                   " and ", c.input(1).to_string());
  return scalar_output(c);
}

status tagged_summary_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  return scalar_output(c);
}

}  // namespace

CAFLOW_REGISTER_OP("ScalarSummary")
    .input("tags: string")
    .input("values: T")
    .output("summary: string")
    .attr("T: {float32, float64, int32, int64, uint8}")
    .set_shape_fn(scalar_summary_shape);
CAFLOW_REGISTER_OP("HistogramSummary")
    .input("tag: string")
    .input("values: T")
    .output("summary: string")
    .attr("T: {float32, float64, int32, int64, uint8} = float32")
    .set_shape_fn(tagged_summary_shape);
CAFLOW_REGISTER_OP("TensorSummaryV2")
    .input("tag: string")
    .input("tensor: T")
    .input("serialized_summary_metadata: string")
    .output("summary: string")
    .attr("T: type")
    .set_shape_fn(tagged_summary_shape);
// The tag is the node's name; the attrs fill the value's SummaryMetadata.
CAFLOW_REGISTER_OP("TensorSummary")
    .input("tensor: T")
    .output("summary: string")
    .attr("T: type")
    .attr("description: string = ''")
    .attr("labels: list(string) = []")
    .attr("display_name: string = ''")
    .set_shape_fn(scalar_output);
CAFLOW_REGISTER_OP("MergeSummary")
    .input("inputs: N * string")
    .output("summary: string")
    .attr("N: int >= 1")
    .set_shape_fn(scalar_output);

}  // namespace caflow
