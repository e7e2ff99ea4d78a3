// The copies between a device's memory and host memory that graph/ir/memory_types inserts,
// and HostConst, a Const that stays in host memory. They serve every device type; on a device
// that computes in host memory they are never inserted, and would return their input.
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class copy_to_host_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto host = to_host(ctx.input(0));
    CAFLOW_OP_REQUIRES_OK(ctx, host.get_status());
    ctx.set_output(0, std::move(host).value());
  }
};

class copy_from_host_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  // Recorded where its input is computed in the recording (shapes from host-computed kernels):
  // the device copies from a buffer it keeps (gpu_copy.cpp), and a replay happens only where
  // the host values it depends on are the recorded ones (actors/executor/executor_capture.cpp).
  bool is_capturable() const override { return true; }
  bool records_outside_inputs() const override { return false; }
  void compute(kernel_context& ctx) override {
    auto here = ctx.dev().copy_in(ctx.input(0));
    CAFLOW_OP_REQUIRES_OK(ctx, here.get_status());
    ctx.set_output(0, std::move(here).value());
  }
};

class host_const_op final : public op_kernel {
 public:
  explicit host_const_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("value", &value_));
  }
  void compute(kernel_context& ctx) override { ctx.set_output(0, value_); }

 private:
  tensor value_;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("_CopyToHost").device(any_device).host_memory("output"),
                       copy_to_host_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_CopyFromHost").device(any_device).host_memory("input"),
                       copy_from_host_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("HostConst").device(any_device).host_memory("output"),
                       host_const_op);

}  // namespace caflow
