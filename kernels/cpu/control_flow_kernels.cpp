// Kernels of the control-flow ops (graph/ops/control_flow_ops.cpp). They forward
// tensor handles or variable references, so they are dtype-agnostic and serve every device; the
// executor does the rest (frames, iterations, deadness: actors/executor/executor_frames.cpp). A Switch
// leaves its untaken output unset, which the executor reads as dead.
#include "devices/resource_manager.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

void forward(kernel_context& ctx, int in, int out) {
  if (const auto& ref = ctx.input_ref(in)) ctx.set_output_ref(out, ref);
  else if (auto handle = ctx.input_resource<resource>(in)) ctx.set_output_resource(out, handle);
  else ctx.set_output(out, ctx.input(in));
}

bool is_live(kernel_context& ctx, int in) {
  return ctx.input(in).initialized() || ctx.input_ref(in) != nullptr ||
         ctx.input_resource<resource>(in) != nullptr;
}

class switch_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const tensor& pred = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, pred.rank() == 0,
                       errors::invalid_argument("pred must be a scalar, got shape ",
                                                pred.shape().to_string()));
    forward(ctx, 0, pred.scalar_value<bool>() ? 1 : 0);
  }
};

class merge_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    // The executor hands a Merge only its first live input.
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!is_live(ctx, i)) continue;
      forward(ctx, i, 0);
      tensor* index = ctx.allocate_output(1, tensor_shape{});
      if (index) *index->data<int32_t>() = i;
      return;
    }
    ctx.set_status(errors::internal("none of the ", ctx.num_inputs(), " inputs is alive"));
  }
};

// Enter, Exit, NextIteration and LoopCond: the value itself is unchanged; where it goes next
// (which frame, which iteration) is the executor's business.
class forward_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { forward(ctx, 0, 0); }
};

class control_trigger_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context&) override {}
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("Switch").device(any_device).passes_strings().host_memory("pred"),
                       switch_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RefSwitch").device(any_device).host_memory("pred"),
                       switch_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Merge").device(any_device).passes_strings().host_memory("value_index"),
                       merge_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Enter").device(any_device).passes_strings(), forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RefEnter").device(any_device), forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Exit").device(any_device).passes_strings(), forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RefExit").device(any_device), forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("NextIteration").device(any_device).passes_strings(), forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RefNextIteration").device(any_device), forward_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("LoopCond").device(any_device).host_memory("input").host_memory("output"),
    forward_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("ControlTrigger").device(any_device),
                       control_trigger_op);

}  // namespace caflow
