// Queues (FIFOQueueV2 and its Queue*V2 ops) and conditional accumulators, dense and sparse:
// registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status fifo_queue_shape(shape_context& c) {
  std::vector<dtype> types;
  std::vector<partial_shape> shapes;
  int64_t capacity = -1;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("component_types", &types));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shapes", &shapes));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("capacity", &capacity));
  if (!shapes.empty() && shapes.size() != types.size())
    return c.error("shapes lists ", static_cast<int64_t>(shapes.size()), " shapes for ",
                   static_cast<int64_t>(types.size()), " component types");
  if (capacity == 0 || capacity < -1)
    return c.error("capacity must be -1 (unbounded) or positive, got ", capacity);
  c.set_output(0, partial_shape(tensor_shape{}));
  return {};
}

// Ops on a handle: the handle is a scalar; `scalars` more inputs must be scalars too.
template <int scalars>
status handle_op_shape(shape_context& c) {
  for (int i = 0; i <= scalars; ++i) CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 0));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape::unknown());
  return {};
}

status scalar_of_handle_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  c.set_output(0, partial_shape(tensor_shape{}));
  return {};
}

status enqueue_many_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  int first = -1;  // the first component whose batch size is known
  for (int i = 1; i < c.num_inputs(); ++i) {
    CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(i, 1));
    if (!c.input(i).rank_known() || c.input(i).dim(0) < 0) continue;
    if (first < 0) first = i;
    if (c.input(i).dim(0) != c.input(first).dim(0))
      return c.error("components must have the same size in dimension 0: component ", i - 1,
                     " has shape ", c.input(i).to_string(), ", component ", first - 1, " has ",
                     c.input(first).to_string());
  }
  return {};
}

status dequeue_many_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(handle_op_shape<1>(c));
  if (const tensor* n = c.input_value(1); n && n->scalar_value<int32_t>() < 0)
    return c.error("cannot dequeue a negative number of elements: ", n->scalar_value<int32_t>());
  return {};
}

status accumulator_shape(shape_context& c) {
  std::string reduction;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("reduction_type", &reduction));
  if (reduction != "MEAN" && reduction != "SUM")
    return c.error("reduction_type must be 'MEAN' or 'SUM', got '", reduction, "'");
  c.set_output(0, partial_shape(tensor_shape{}));
  return {};
}

status take_gradient_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(handle_op_shape<1>(c));
  if (const tensor* n = c.input_value(1); n && n->scalar_value<int32_t>() < 1)
    return c.error("num_required must be positive, got ", n->scalar_value<int32_t>());
  return {};
}

status sparse_apply_gradient_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(handle_op_shape<1>(c));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(3, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(4, 1));
  const partial_shape &indices = c.input(2), &values = c.input(3);
  if (indices.rank_known() && values.rank_known() && indices.dim(0) >= 0 && values.dim(0) >= 0 &&
      indices.dim(0) != values.dim(0))
    return c.error("gradient_values of shape ", values.to_string(),
                   " must have one row per index, but gradient_indices has shape ",
                   indices.to_string());
  return {};
}

status sparse_take_gradient_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(take_gradient_shape(c));
  c.set_output(0, partial_shape({-1}));
  c.set_output(2, partial_shape({-1}));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("FIFOQueueV2").output("handle: resource")
    .attr("component_types: list(type) >= 1").attr("shapes: list(shape) >= 0 = []")
    .attr("capacity: int = -1").attr("container: string = ''").attr("shared_name: string = ''")
    .stateful().cheap().set_shape_fn(fifo_queue_shape);
// Components are list(type) args: one tensor per listed type.
CAFLOW_REGISTER_OP("QueueEnqueueV2").input("handle: resource").input("components: Tcomponents")
    .attr("Tcomponents: list(type) >= 1").attr("timeout_ms: int = -1").stateful().cheap()
    .set_shape_fn(handle_op_shape<0>);
CAFLOW_REGISTER_OP("QueueEnqueueManyV2").input("handle: resource").input("components: Tcomponents")
    .attr("Tcomponents: list(type) >= 1").attr("timeout_ms: int = -1").stateful().cheap()
    .set_shape_fn(enqueue_many_shape);
CAFLOW_REGISTER_OP("QueueDequeueV2").input("handle: resource").output("components: component_types")
    .attr("component_types: list(type) >= 1").attr("timeout_ms: int = -1").stateful().cheap()
    .set_shape_fn(handle_op_shape<0>);
CAFLOW_REGISTER_OP("QueueDequeueManyV2").input("handle: resource").input("n: int32")
    .output("components: component_types").attr("component_types: list(type) >= 1")
    .attr("timeout_ms: int = -1").stateful().set_shape_fn(dequeue_many_shape);
CAFLOW_REGISTER_OP("QueueCloseV2").input("handle: resource")
    .attr("cancel_pending_enqueues: bool = false").stateful().cheap()
    .set_shape_fn(handle_op_shape<0>);
CAFLOW_REGISTER_OP("QueueSizeV2").input("handle: resource").output("size: int32").stateful()
    .cheap().set_shape_fn(scalar_of_handle_shape);

CAFLOW_REGISTER_OP("ConditionalAccumulator").output("handle: resource")
    .attr("dtype: {float32, float64}").attr("shape: shape").attr("container: string = ''")
    .attr("shared_name: string = ''").attr("reduction_type: string = 'MEAN'").stateful().cheap()
    .set_shape_fn(accumulator_shape);
CAFLOW_REGISTER_OP("AccumulatorApplyGradient").input("handle: resource").input("local_step: int64")
    .input("gradient: dtype").attr("dtype: {float32, float64}").stateful()
    .set_shape_fn(handle_op_shape<1>);
CAFLOW_REGISTER_OP("AccumulatorTakeGradient").input("handle: resource").input("num_required: int32")
    .output("average: dtype").attr("dtype: {float32, float64}").stateful()
    .set_shape_fn(take_gradient_shape);
// IndexedSlices accumulated per row: a MEAN take divides each row by the number of gradients
// that named it (TF's sparse accumulator), not by all gradients taken.
CAFLOW_REGISTER_OP("SparseConditionalAccumulator").output("handle: resource")
    .attr("dtype: {float32, float64}").attr("shape: shape").attr("container: string = ''")
    .attr("shared_name: string = ''").attr("reduction_type: string = 'MEAN'").stateful().cheap()
    .set_shape_fn(accumulator_shape);
CAFLOW_REGISTER_OP("SparseAccumulatorApplyGradient").input("handle: resource")
    .input("local_step: int64").input("gradient_indices: int64").input("gradient_values: dtype")
    .input("gradient_shape: int64").attr("dtype: {float32, float64}")
    .attr("has_known_shape: bool").stateful().set_shape_fn(sparse_apply_gradient_shape);
CAFLOW_REGISTER_OP("SparseAccumulatorTakeGradient").input("handle: resource")
    .input("num_required: int32").output("indices: int64").output("values: dtype")
    .output("shape: int64").attr("dtype: {float32, float64}").stateful()
    .set_shape_fn(sparse_take_gradient_shape);
CAFLOW_REGISTER_OP("AccumulatorNumAccumulated").input("handle: resource")
    .output("num_accumulated: int32").stateful().cheap().set_shape_fn(scalar_of_handle_shape);
CAFLOW_REGISTER_OP("AccumulatorSetGlobalStep").input("handle: resource")
    .input("new_global_step: int64").stateful().cheap().set_shape_fn(handle_op_shape<1>);

}  // namespace caflow
