// QueueEnqueueV2 and QueueEnqueueManyV2: asynchronous, they complete once their elements are
// in the queue. EnqueueMany's elements are zero-copy slices of the given batches.
#include "kernels/resources/fifo_queue.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

status check_timeout_attr(kernel_construction& c) {
  int64_t timeout_ms = -1;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("timeout_ms", &timeout_ms));
  if (timeout_ms != -1)
    return errors::unimplemented("timeout_ms ", timeout_ms,
                                 " is not supported (only -1); bound waits with the session's "
                                 "operation_timeout");
  return {};
}

// The queue behind input 0 and the component count check shared by both enqueues.
status_or<std::shared_ptr<fifo_queue>> queue_for(kernel_context& ctx) {
  auto queue = ctx.input_resource<fifo_queue>(0);
  if (!queue) return errors::invalid_argument("input 0 is not a queue handle");
  const auto given = static_cast<size_t>(ctx.num_inputs() - 1);
  if (given != queue->component_types().size())
    return errors::invalid_argument("queue '", queue->name(), "' has ",
                                    static_cast<int64_t>(queue->component_types().size()),
                                    " components, got ", static_cast<int64_t>(given));
  return queue;
}

void enqueue(kernel_context& ctx, fifo_queue& queue, std::vector<fifo_queue::tuple> elements,
             async_op_kernel::done_callback done) {
  queue.enqueue(std::move(elements), {ctx.step().cancellation, &ctx.dev()},
                [&ctx, done = std::move(done)](status st) {
                  ctx.set_status(std::move(st));
                  done();
                });
}

class queue_enqueue_op final : public async_op_kernel {
 public:
  explicit queue_enqueue_op(kernel_construction& c) : async_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_timeout_attr(c));
  }
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto queue = queue_for(ctx);
    status st = queue.get_status();
    fifo_queue::tuple element;
    for (int i = 0; st.ok() && i + 1 < ctx.num_inputs(); ++i) {
      const tensor& t = ctx.input(i + 1);
      st = (*queue)->check_component(i, t.type(), t.shape());
      element.push_back(t);
    }
    if (!st.ok()) {
      ctx.set_status(std::move(st));
      done();
      return;
    }
    std::vector<fifo_queue::tuple> elements;
    elements.push_back(std::move(element));
    enqueue(ctx, **queue, std::move(elements), std::move(done));
  }
};

class queue_enqueue_many_op final : public async_op_kernel {
 public:
  explicit queue_enqueue_many_op(kernel_construction& c) : async_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_timeout_attr(c));
  }
  void compute_async(kernel_context& ctx, done_callback done) override {
    std::vector<fifo_queue::tuple> elements;
    status st = split(ctx, elements);
    if (!st.ok()) {
      ctx.set_status(std::move(st));
      done();
      return;
    }
    enqueue(ctx, *ctx.input_resource<fifo_queue>(0), std::move(elements), std::move(done));
  }

 private:
  // Each component's rows along dimension 0, as elements sharing the batches' bytes.
  static status split(kernel_context& ctx, std::vector<fifo_queue::tuple>& elements) {
    CAFLOW_ASSIGN_OR_RETURN(auto queue, queue_for(ctx));
    const int components = ctx.num_inputs() - 1;
    std::vector<tensor_shape> element_shapes;
    for (int i = 0; i < components; ++i) {
      const tensor& t = ctx.input(i + 1);
      if (t.rank() < 1)
        return errors::invalid_argument("component ", i,
                                        " must be a batch (rank >= 1) to enqueue many, got shape ",
                                        t.shape().to_string());
      if (t.dim(0) != ctx.input(1).dim(0))
        return errors::invalid_argument(
            "components must have the same size in dimension 0: component ", i, " has shape ",
            t.shape().to_string(), ", component 0 has ", ctx.input(1).shape().to_string());
      tensor_shape element = t.shape();
      element.remove_dim(0);
      CAFLOW_RETURN_IF_ERROR(queue->check_component(i, t.type(), element));
      element_shapes.push_back(element);
    }
    const int64_t batch = ctx.input(1).dim(0);
    elements.resize(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b)
      for (int i = 0; i < components; ++i)
        elements[b].push_back(ctx.input(i + 1).slice_dim0(b, b + 1).reshaped(element_shapes[i]));
    return {};
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueEnqueueV2").device(device_cpu), queue_enqueue_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueEnqueueManyV2").device(device_cpu),
                       queue_enqueue_many_op);

}  // namespace caflow
