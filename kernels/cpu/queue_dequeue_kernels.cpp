// QueueDequeueV2 and QueueDequeueManyV2: asynchronous, they complete when served, when the
// queue is closed with too few elements, or when their step is cancelled. A single dequeue
// hands the stored tensors on (zero-copy); DequeueMany copies n elements into one stacked
// tensor per component.
#include <cstring>

#include "kernels/resources/fifo_queue.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

std::string types_string(const std::vector<dtype>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(dtype_name(types[i]));
  return s + ")";
}

class dequeue_base : public async_op_kernel {
 public:
  explicit dequeue_base(kernel_construction& c) : async_op_kernel(c) {
    int64_t timeout_ms = -1;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("component_types", &types_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("timeout_ms", &timeout_ms));
    CAFLOW_OP_REQUIRES(c, timeout_ms == -1,
                       errors::unimplemented("timeout_ms ", timeout_ms,
                                             " is not supported (only -1); bound waits with the "
                                             "session's operation_timeout"));
  }

 protected:
  // The queue behind input 0, holding the component types this node gives.
  status_or<std::shared_ptr<fifo_queue>> queue_for(kernel_context& ctx) const {
    auto queue = ctx.input_resource<fifo_queue>(0);
    if (!queue) return errors::invalid_argument("input 0 is not a queue handle");
    if (queue->component_types() != types_)
      return errors::invalid_argument("queue '", queue->name(), "' holds ",
                                      types_string(queue->component_types()),
                                      ", but this dequeue gives ", types_string(types_));
    return queue;
  }

  std::vector<dtype> types_;
};

class queue_dequeue_op final : public dequeue_base {
 public:
  using dequeue_base::dequeue_base;
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto queue = queue_for(ctx);
    if (!queue.ok()) {
      ctx.set_status(queue.get_status());
      done();
      return;
    }
    (*queue)->dequeue(1, false, {ctx.step().cancellation, &ctx.dev()},
                      [&ctx, done = std::move(done)](status st,
                                                     std::vector<fifo_queue::tuple> elements) {
                        if (st.ok()) {
                          for (int i = 0; i < ctx.num_outputs(); ++i)
                            ctx.set_output(i, std::move(elements[0][i]));
                        }
                        ctx.set_status(std::move(st));
                        done();
                      });
  }
};

class queue_dequeue_many_op final : public dequeue_base {
 public:
  using dequeue_base::dequeue_base;
  void compute_async(kernel_context& ctx, done_callback done) override {
    status st = start(ctx, done);
    if (!st.ok()) {
      ctx.set_status(std::move(st));
      done();
    }
  }

 private:
  // Starts the dequeue (which then owns `done`), or returns why it cannot.
  status start(kernel_context& ctx, done_callback& done) const {
    CAFLOW_ASSIGN_OR_RETURN(auto queue, queue_for(ctx));
    const tensor& n_tensor = ctx.input(1);
    if (n_tensor.rank() != 0)
      return errors::invalid_argument("n must be a scalar, got shape ", n_tensor.shape().to_string());
    const int64_t n = n_tensor.scalar_value<int32_t>();
    if (n < 0) return errors::invalid_argument("cannot dequeue a negative number of elements: ", n);
    if (n == 0) return empty_batch(ctx, *queue, done);
    queue->dequeue(n, true, {ctx.step().cancellation, &ctx.dev()},
                   [&ctx, n, done = std::move(done)](status st,
                                                     std::vector<fifo_queue::tuple> elements) {
                     if (st.ok()) st = stack(ctx, n, elements);
                     ctx.set_status(std::move(st));
                     done();
                   });
    return {};
  }

  // Zero elements: a batch of [0, shape...] per component, which needs the queue's shapes.
  static status empty_batch(kernel_context& ctx, const fifo_queue& queue, done_callback& done) {
    const auto& shapes = queue.component_shapes();
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      if (shapes.empty() || !shapes[i].fully_defined())
        return errors::invalid_argument("dequeuing 0 elements from queue '", queue.name(),
                                        "' needs fully defined component shapes, component ", i,
                                        " has ", shapes.empty() ? "none" : shapes[i].to_string());
      tensor_shape s = shapes[i].to_shape();
      if (s.rank() >= max_rank)
        return errors::invalid_argument("component ", i, " of shape ", s.to_string(),
                                        " has no room for a batch dimension");
      s.insert_dim(0, 0);
      if (!ctx.allocate_output(i, s)) return ctx.get_status();
    }
    done();
    return {};
  }

  static status stack(kernel_context& ctx, int64_t n, const std::vector<fifo_queue::tuple>& elements) {
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      const tensor& first = elements[0][i];
      tensor_shape s = first.shape();
      if (s.rank() >= max_rank)
        return errors::invalid_argument("component ", i, " of shape ", s.to_string(),
                                        " has no room for a batch dimension");
      s.insert_dim(0, n);
      tensor* out = ctx.allocate_output(i, s);
      if (!out) return ctx.get_status();
      const size_t bytes = first.byte_size();
      auto* dst = static_cast<char*>(out->raw_data());
      for (int64_t k = 0; k < n && bytes > 0; ++k)
        std::memcpy(dst + k * bytes, elements[k][i].raw_data(), bytes);
    }
    return {};
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueDequeueV2").device(device_cpu), queue_dequeue_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueDequeueManyV2").device(device_cpu),
                       queue_dequeue_many_op);

}  // namespace caflow
