// FIFOQueueV2, QueueCloseV2 and QueueSizeV2. The queue lives in the device's resource manager
// under (container, shared_name or node name), looked up once when the kernel is built, so
// every graph naming it on this device shares one queue.
#include "kernels/resources/fifo_queue.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class fifo_queue_op final : public op_kernel {
 public:
  explicit fifo_queue_op(kernel_construction& c) : op_kernel(c) {
    std::vector<dtype> types;
    std::vector<partial_shape> shapes;
    int64_t capacity = -1;
    std::string container, shared_name;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("component_types", &types));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shapes", &shapes));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("capacity", &capacity));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("container", &container));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shared_name", &shared_name));
    CAFLOW_OP_REQUIRES_OK(c, fifo_queue::check_attrs(types, shapes, capacity));
    const std::string& key = shared_name.empty() ? c.def().name : shared_name;
    queue_ = c.dev().resources().lookup_or_create<fifo_queue>(container, key, [&] {
      return std::make_shared<fifo_queue>(key, types, shapes, capacity);
    });
    CAFLOW_OP_REQUIRES(c, queue_,
                       errors::invalid_argument("resource '", key, "' in container '", container,
                                                "' exists and is not a queue"));
    CAFLOW_OP_REQUIRES_OK(c, queue_->matches(types, shapes, capacity));
  }
  void compute(kernel_context& ctx) override { ctx.set_output_resource(0, queue_); }

 private:
  std::shared_ptr<fifo_queue> queue_;
};

class queue_close_op final : public op_kernel {
 public:
  explicit queue_close_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("cancel_pending_enqueues", &cancel_pending_));
  }
  void compute(kernel_context& ctx) override {
    auto queue = ctx.input_resource<fifo_queue>(0);
    CAFLOW_OP_REQUIRES(ctx, queue, errors::invalid_argument("input 0 is not a queue handle"));
    queue->close(cancel_pending_);
  }

 private:
  bool cancel_pending_ = false;
};

class queue_size_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto queue = ctx.input_resource<fifo_queue>(0);
    CAFLOW_OP_REQUIRES(ctx, queue, errors::invalid_argument("input 0 is not a queue handle"));
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<int32_t>() = static_cast<int32_t>(queue->size());
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("FIFOQueueV2").device(device_cpu), fifo_queue_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueCloseV2").device(device_cpu), queue_close_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("QueueSizeV2").device(device_cpu), queue_size_op);

}  // namespace caflow
