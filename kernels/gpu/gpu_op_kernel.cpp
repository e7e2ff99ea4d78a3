#include "kernels/gpu/gpu_op_kernel.hpp"

#include "devices/gpu_devices.hpp"

namespace caflow::gpu {

void gpu_op_kernel::compute(kernel_context& ctx) {
  gpu_device* g = as_gpu(ctx.dev());
  CAFLOW_OP_REQUIRES(ctx, g != nullptr,
                     errors::internal("a GPU kernel was run on ", ctx.dev().name()));
  CAFLOW_OP_REQUIRES_OK(ctx, g->activate());
  compute_on(ctx, *g);
  if (ctx.ok()) ctx.set_status(launch_status(type_string().c_str()));
}

bool is_device_memory(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

status_or<tensor> device_input(kernel_context& ctx, gpu_device& g, int i) {
  const tensor& t = ctx.input(i);
  if (t.byte_size() == 0) return t;
  return g.copy_in(t);
}

status_or<tensor> host_input(kernel_context& ctx, gpu_device& /*g*/, int i) {
  const tensor& t = ctx.input(i);
  if (t.byte_size() == 0) return t;
  return to_host(t);
}

status_or<std::vector<int64_t>> host_ints(kernel_context& ctx, gpu_device& g, int i) {
  CAFLOW_ASSIGN_OR_RETURN(tensor t, host_input(ctx, g, i));
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (t.type() == dtype::int32) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = t.data<int32_t>()[k];
  } else if (t.type() == dtype::int64) {
    for (size_t k = 0; k < v.size(); ++k) v[k] = t.data<int64_t>()[k];
  } else {
    return errors::invalid_argument("input ", i, " must be int32 or int64, got ",
                                    dtype_name(t.type()));
  }
  return v;
}

tensor allocate_output(kernel_context& ctx, gpu_device& g, int i, const tensor_shape& shape) {
  auto t = g.allocate(ctx.output_type(i), shape);
  if (!t.ok()) {
    ctx.set_status(t.get_status());
    return tensor();
  }
  ctx.set_output(i, *t);
  return std::move(t).value();
}

status launch_status(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return {};
  return errors::internal("launching the ", what, " kernel: ", cudaGetErrorName(e), " (",
                          cudaGetErrorString(e), ")");
}

}  // namespace caflow::gpu
