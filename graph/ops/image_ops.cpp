// The image ops: NonMaxSuppressionV3, V4 (pad_to_max_output_size, valid_outputs) and V5
// (soft_nms_sigma, selected_scores): registrations and shape functions, with TensorFlow's
// signatures restricted to caflow's dtypes (float32 boxes, scores and thresholds).
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// boxes [num_boxes, 4], scores [num_boxes], then scalars. Returns the length of the selected
// outputs: max_output_size when padded to it and known, else unknown.
status_or<int64_t> nms_inputs(shape_context& c, int scalars, bool padded) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 2));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  for (int i = 2; i < 2 + scalars; ++i) CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 0));
  const partial_shape& boxes = c.input(0);
  const partial_shape& scores = c.input(1);
  if (boxes.rank_known() && boxes.dim(1) >= 0 && boxes.dim(1) != 4)
    return c.error("boxes must be [num_boxes, 4], got shape ", boxes.to_string());
  if (boxes.rank_known() && scores.rank_known() && boxes.dim(0) >= 0 && scores.dim(0) >= 0 &&
      boxes.dim(0) != scores.dim(0))
    return c.error("scores of shape ", scores.to_string(), " must hold one score per box of ",
                   "boxes of shape ", boxes.to_string());
  if (const tensor* max = c.input_value(2); max != nullptr && max->num_elements() == 1) {
    const int64_t n = max->data<int32_t>()[0];
    if (n < 0) return c.error("max_output_size must be non-negative, got ", n);
    if (padded) return n;
  }
  return int64_t{-1};
}

bool padded(const shape_context& c) {
  bool pad = false;
  return c.get_attr("pad_to_max_output_size", &pad).ok() && pad;
}

status nms_v3_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(nms_inputs(c, 3, false).get_status());
  c.set_output(0, partial_shape{-1});
  return {};
}

status nms_v4_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const int64_t n, nms_inputs(c, 3, padded(c)));
  c.set_output(0, partial_shape{n});
  c.set_output(1, partial_shape(tensor_shape{}));
  return {};
}

status nms_v5_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const int64_t n, nms_inputs(c, 4, padded(c)));
  c.set_output(0, partial_shape{n});
  c.set_output(1, partial_shape{n});
  c.set_output(2, partial_shape(tensor_shape{}));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("NonMaxSuppressionV3")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T_threshold")
    .input("score_threshold: T_threshold")
    .output("selected_indices: int32")
    .attr("T: {float32} = float32")
    .attr("T_threshold: {float32} = float32")
    .set_shape_fn(nms_v3_shape);

CAFLOW_REGISTER_OP("NonMaxSuppressionV4")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T_threshold")
    .input("score_threshold: T_threshold")
    .output("selected_indices: int32")
    .output("valid_outputs: int32")
    .attr("T: {float32} = float32")
    .attr("T_threshold: {float32} = float32")
    .attr("pad_to_max_output_size: bool = false")
    .set_shape_fn(nms_v4_shape);

CAFLOW_REGISTER_OP("NonMaxSuppressionV5")
    .input("boxes: T")
    .input("scores: T")
    .input("max_output_size: int32")
    .input("iou_threshold: T")
    .input("score_threshold: T")
    .input("soft_nms_sigma: T")
    .output("selected_indices: int32")
    .output("selected_scores: T")
    .output("valid_outputs: int32")
    .attr("T: {float32} = float32")
    .attr("pad_to_max_output_size: bool = false")
    .set_shape_fn(nms_v5_shape);

}  // namespace caflow
