// Kernels the gradient machinery builds on: BroadcastGradientArgs (which dims to sum a
// broadcast gradient over) and StopGradient (the input itself, bytes shared).
#include "graph/util/broadcast_reduction.hpp"
#include "kernels/framework/host_computed.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class broadcast_gradient_args_op : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    for (int i = 0; i < 2; ++i)
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 1,
                         errors::invalid_argument("s", i, " must be a vector, got shape ",
                                                  ctx.input(i).shape().to_string()));
    auto r = broadcast_gradient_reduction(dims(ctx.input(0)), dims(ctx.input(1)));
    CAFLOW_OP_REQUIRES_OK(ctx, r.get_status());
    set(ctx, 0, r->r0);
    set(ctx, 1, r->r1);
  }

 private:
  static std::vector<int64_t> dims(const tensor& t) {
    const T* p = t.data<T>();
    return std::vector<int64_t>(p, p + t.num_elements());
  }

  static void set(kernel_context& ctx, int i, const std::vector<int64_t>& values) {
    tensor* out = ctx.allocate_output(i, tensor_shape{static_cast<int64_t>(values.size())});
    if (out == nullptr) return;
    for (size_t j = 0; j < values.size(); ++j) out->data<T>()[j] = static_cast<T>(values[j]);
  }
};

class stop_gradient_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BroadcastGradientArgs", device_cpu, "T",
                              broadcast_gradient_args_op, int32_t, int64_t);
// On a GPU: the same host computation on host-memory shapes (kernels/framework/host_computed.hpp).
template <class T>
using broadcast_gradient_args_on_host = host_computed<broadcast_gradient_args_op<T>>;
CAFLOW_REGISTER_TYPED_KERNELS("BroadcastGradientArgs", device_gpu, "T",
                              broadcast_gradient_args_on_host, int32_t, int64_t);
CAFLOW_REGISTER_HOST_MEMORY("BroadcastGradientArgs", device_gpu, "s0", "s1", "r0", "r1");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("StopGradient").device(any_device), stop_gradient_op);

}  // namespace caflow
