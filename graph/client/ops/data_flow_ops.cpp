#include "graph/client/ops/data_flow_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
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

namespace ops {

output fifo_queue(const scope& s, const std::vector<dtype>& component_types,
                  const fifo_queue_attrs& attrs) {
  return node_builder(s, "FIFOQueueV2", "fifo_queue").attr("component_types", component_types)
      .attr("shapes", attrs.shapes).attr("capacity", attrs.capacity)
      .attr("container", attrs.container).attr("shared_name", attrs.shared_name).finalize().out();
}

operation queue_enqueue(const scope& s, const output& handle, const std::vector<output>& components) {
  return node_builder(s, "QueueEnqueueV2").input(handle).input_list(components).finalize();
}

operation queue_enqueue_many(const scope& s, const output& handle,
                             const std::vector<output>& components) {
  return node_builder(s, "QueueEnqueueManyV2").input(handle).input_list(components).finalize();
}

namespace {
std::vector<output> all_outputs(const operation& op, size_t n) {
  std::vector<output> outs;
  for (size_t i = 0; i < n; ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}
}  // namespace

std::vector<output> queue_dequeue(const scope& s, const output& handle,
                                  const std::vector<dtype>& component_types) {
  auto op = node_builder(s, "QueueDequeueV2").input(handle)
                .attr("component_types", component_types).finalize();
  return all_outputs(op, component_types.size());
}

std::vector<output> queue_dequeue_many(const scope& s, const output& handle, const output& n,
                                       const std::vector<dtype>& component_types) {
  auto op = node_builder(s, "QueueDequeueManyV2").input(handle).input(n)
                .attr("component_types", component_types).finalize();
  return all_outputs(op, component_types.size());
}

operation queue_close(const scope& s, const output& handle, const queue_close_attrs& attrs) {
  return node_builder(s, "QueueCloseV2").input(handle)
      .attr("cancel_pending_enqueues", attrs.cancel_pending_enqueues).finalize();
}

output queue_size(const scope& s, const output& handle) {
  return node_builder(s, "QueueSizeV2").input(handle).finalize().out();
}

output conditional_accumulator(const scope& s, dtype type, const partial_shape& shape,
                               const conditional_accumulator_attrs& attrs) {
  return node_builder(s, "ConditionalAccumulator", "conditional_accumulator").attr("dtype", type)
      .attr("shape", shape).attr("container", attrs.container)
      .attr("shared_name", attrs.shared_name).attr("reduction_type", attrs.reduction_type)
      .finalize().out();
}

operation accumulator_apply_gradient(const scope& s, const output& handle,
                                     const output& local_step, const output& gradient) {
  return node_builder(s, "AccumulatorApplyGradient").input(handle).input(local_step)
      .input(gradient).attr("dtype", gradient.type).finalize();
}

output accumulator_take_gradient(const scope& s, const output& handle, const output& num_required,
                                 dtype type) {
  return node_builder(s, "AccumulatorTakeGradient").input(handle).input(num_required)
      .attr("dtype", type).finalize().out();
}

output sparse_conditional_accumulator(const scope& s, dtype type, const partial_shape& shape,
                                      const conditional_accumulator_attrs& attrs) {
  return node_builder(s, "SparseConditionalAccumulator", "sparse_conditional_accumulator")
      .attr("dtype", type).attr("shape", shape).attr("container", attrs.container)
      .attr("shared_name", attrs.shared_name).attr("reduction_type", attrs.reduction_type)
      .finalize().out();
}

operation sparse_accumulator_apply_gradient(const scope& s, const output& handle,
                                            const output& local_step, const output& indices,
                                            const output& values, const output& shape) {
  const bool known = shape.valid();
  const output indices64 =
      indices.type == dtype::int64 ? indices : cast(s, indices, dtype::int64);
  output shape64 = known ? shape : constant(s, std::vector<int64_t>{}, tensor_shape{0});
  if (shape64.type != dtype::int64) shape64 = cast(s, shape64, dtype::int64);
  return node_builder(s, "SparseAccumulatorApplyGradient").input(handle).input(local_step)
      .input(indices64).input(values).input(shape64).attr("dtype", values.type)
      .attr("has_known_shape", known).finalize();
}

std::vector<output> sparse_accumulator_take_gradient(const scope& s, const output& handle,
                                                     const output& num_required, dtype type) {
  const operation op = node_builder(s, "SparseAccumulatorTakeGradient").input(handle)
      .input(num_required).attr("dtype", type).finalize();
  return {op.out(0), op.out(1), op.out(2)};
}

output accumulator_num_accumulated(const scope& s, const output& handle) {
  return node_builder(s, "AccumulatorNumAccumulated").input(handle).finalize().out();
}

operation accumulator_set_global_step(const scope& s, const output& handle,
                                      const output& new_global_step) {
  return node_builder(s, "AccumulatorSetGlobalStep").input(handle).input(new_global_step)
      .finalize();
}

}  // namespace ops
}  // namespace caflow
