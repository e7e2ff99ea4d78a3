#pragma once
// Queues and gradient accumulators: state shared by steps and sessions through resource
// handles, as TensorFlow's FIFOQueueV2 and ConditionalAccumulator. Also the stateless
// DynamicPartition and DynamicStitch (graph/client/ops/partition_ops.cpp).
//
//   auto q = ops::fifo_queue(root, {dtype::float32, dtype::int32}, {.capacity = 100});
//   auto enq = ops::queue_enqueue(root, q, {images, labels});
//   auto batch = ops::queue_dequeue_many(root, q, ops::constant(root, 32),
//                                        {dtype::float32, dtype::int32});
//
// A queue or accumulator lives on the device of the node that makes it; every op using its
// handle is placed there too. Graphs (of one session or of several clients of one task) that
// give the same container and shared_name reach the same queue; without a shared_name the node
// name is the key. Dequeues, enqueues on a full queue and takes wait without holding a thread,
// until served, closed out, or their step is cancelled (e.g. by the session's
// operation_timeout).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct fifo_queue_attrs {
  // Empty, or one shape per component, checked on every enqueue.
  std::vector<partial_shape> shapes{};
  int64_t capacity = -1;  // -1: unbounded
  std::string container{};
  std::string shared_name{};
};
// FIFOQueueV2: the queue's resource handle.
output fifo_queue(const scope& s, const std::vector<dtype>& component_types,
                  const fifo_queue_attrs& attrs = {});
// QueueEnqueueV2: one element, one tensor per component; waits while the queue is full.
operation queue_enqueue(const scope& s, const output& handle, const std::vector<output>& components);
// QueueEnqueueManyV2: components are batches along dimension 0, enqueued as that many elements.
operation queue_enqueue_many(const scope& s, const output& handle,
                             const std::vector<output>& components);
// QueueDequeueV2: one element, one output per component.
std::vector<output> queue_dequeue(const scope& s, const output& handle,
                                  const std::vector<dtype>& component_types);
// QueueDequeueManyV2: n elements (n an int32 scalar), each component stacked on a new dim 0.
std::vector<output> queue_dequeue_many(const scope& s, const output& handle, const output& n,
                                       const std::vector<dtype>& component_types);
struct queue_close_attrs {
  bool cancel_pending_enqueues = false;
};
// QueueCloseV2.
operation queue_close(const scope& s, const output& handle, const queue_close_attrs& attrs = {});
// QueueSizeV2: the number of elements, an int32 scalar.
output queue_size(const scope& s, const output& handle);

struct conditional_accumulator_attrs {
  std::string container{};
  std::string shared_name{};
  std::string reduction_type = "MEAN";  // or "SUM"
};
// ConditionalAccumulator: the accumulator's resource handle.
output conditional_accumulator(const scope& s, dtype type, const partial_shape& shape,
                               const conditional_accumulator_attrs& attrs = {});
// AccumulatorApplyGradient: local_step an int64 scalar; stale gradients are dropped.
operation accumulator_apply_gradient(const scope& s, const output& handle,
                                     const output& local_step, const output& gradient);
// AccumulatorTakeGradient: waits for num_required (int32 scalar) gradients, gives their
// mean (or sum) and empties the accumulator.
output accumulator_take_gradient(const scope& s, const output& handle, const output& num_required,
                                 dtype type);
// SparseConditionalAccumulator: sums IndexedSlices row by row (see the op's comment).
output sparse_conditional_accumulator(const scope& s, dtype type, const partial_shape& shape,
                                      const conditional_accumulator_attrs& attrs = {});
// SparseAccumulatorApplyGradient: rows `values` at `indices` (int32 or int64, cast to int64);
// `shape` (the dense shape, int32 or int64) may be invalid when unknown.
operation sparse_accumulator_apply_gradient(const scope& s, const output& handle,
                                            const output& local_step, const output& indices,
                                            const output& values, const output& shape);
// SparseAccumulatorTakeGradient: {indices (int64, ascending), values, shape (int64)}.
std::vector<output> sparse_accumulator_take_gradient(const scope& s, const output& handle,
                                                     const output& num_required, dtype type);
// AccumulatorNumAccumulated: an int32 scalar.
output accumulator_num_accumulated(const scope& s, const output& handle);
// AccumulatorSetGlobalStep: new_global_step an int64 scalar.
operation accumulator_set_global_step(const scope& s, const output& handle,
                                      const output& new_global_step);

// DynamicPartition: output i holds the slices data[j...] with partitions[j...] == i, in order;
// partitions (int32) has a prefix of data's shape and values in [0, num_partitions).
std::vector<output> dynamic_partition(const scope& s, const output& data,
                                      const output& partitions, int num_partitions);
// DynamicStitch: merged[indices[m][j...], ...] = data[m][j...], ...; merged has
// max(indices) + 1 rows, and where an index repeats the last one (highest m, then highest j)
// wins. Rows no index names are zero.
output dynamic_stitch(const scope& s, const std::vector<output>& indices,
                      const std::vector<output>& data);

}  // namespace caflow::ops
