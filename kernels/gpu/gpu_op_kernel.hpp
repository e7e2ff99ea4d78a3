#pragma once
// The base of caflow's GPU kernels: activates the kernel's GPU on the calling thread, then
// runs compute_on, which queues work on the GPU's compute stream and returns without waiting.
//
// Where inputs live: data inputs are expected in the GPU's memory; one the executor left in
// host memory is copied over first (device_input), so a kernel is correct either way. Small
// arguments a kernel must read on the host (shapes, axes, dims) are read with host_input,
// which waits for the GPU when they live there: the executor should keep them in host memory
// (TF's HostMemory args) to avoid that wait.
#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_device.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::gpu {

class gpu_op_kernel : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) final;
  // Its work is launches on the device's streams; one that must wait for the GPU (reading a
  // device value on the host) fails a capture, which then falls back to plain launches.
  bool is_capturable() const override { return true; }

 protected:
  virtual void compute_on(kernel_context& ctx, gpu_device& g) = 0;
};

// True for memory the GPU reads directly (device or managed memory).
bool is_device_memory(const void* p);
// Input i in device memory.
status_or<tensor> device_input(kernel_context& ctx, gpu_device& g, int i);
// Input i's values on the host.
status_or<tensor> host_input(kernel_context& ctx, gpu_device& g, int i);
// The values of an integer vector or scalar input (int32 or int64), on the host.
status_or<std::vector<int64_t>> host_ints(kernel_context& ctx, gpu_device& g, int i);
// Output i from the GPU's allocator (the returned tensor shares its bytes); on failure sets an
// error naming the bytes and the limit and returns an uninitialized tensor.
tensor allocate_output(kernel_context& ctx, gpu_device& g, int i, const tensor_shape& shape);
// The error of the last launch on this thread, if any.
status launch_status(const char* what);

}  // namespace caflow::gpu

// Kernel-side helpers: bind `var` to a tensor input, or return from compute_on with the error.
#define CAFLOW_GPU_INPUT(var, ctx, g, i)                        \
  auto var##_or = ::caflow::gpu::device_input((ctx), (g), (i)); \
  CAFLOW_OP_REQUIRES_OK(ctx, var##_or.get_status());            \
  const tensor var = std::move(var##_or).value()
