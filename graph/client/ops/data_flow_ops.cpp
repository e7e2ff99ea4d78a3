#include "graph/client/ops/data_flow_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"

namespace caflow {
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
