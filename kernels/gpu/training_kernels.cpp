// ApplyGradientDescent, ApplyMomentum and ApplyAdam on the GPU: one fused launch per update.
// Hyperparameters are read by the kernel from device memory, so the host never waits.
#include <array>

#include "kernels/common/training_update.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

using training::update_buffers;

// Checks the variables and runs launch(buffers) under their locks
// (kernels/common/training_update.hpp); every slot is written.
template <class T, size_t N, class Launch>
void apply_update(kernel_context& ctx, gpu_device& g, const std::array<const char*, N>& names,
                  const tensor& grad, Launch&& launch) {
  std::array<bool, N> writes;
  writes.fill(true);
  training::locked_update<T, N>(
      ctx, names, grad.shape(), writes,
      [&](dtype type, const tensor_shape& shape) { return g.allocate(type, shape); }, launch);
}

template <class T>
class apply_gradient_descent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(alpha, ctx, g, 1);
    CAFLOW_GPU_INPUT(delta, ctx, g, 2);
    CAFLOW_OP_REQUIRES_OK(ctx, training::check_scalar(alpha, "alpha"));
    apply_update<T, 1>(ctx, g, {"var"}, delta, [&](const update_buffers<T, 1>& b) {
      launch_apply_gradient_descent<T>(b.in[0], b.out[0], alpha.data<T>(), delta.data<T>(), b.n,
                                       g.compute_stream());
    });
  }
};

template <class T>
class apply_momentum_op final : public gpu_op_kernel {
 public:
  explicit apply_momentum_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &use_nesterov_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(lr, ctx, g, 2);
    CAFLOW_GPU_INPUT(grad, ctx, g, 3);
    CAFLOW_GPU_INPUT(momentum, ctx, g, 4);
    CAFLOW_OP_REQUIRES_OK(ctx, training::check_scalar(lr, "lr"));
    CAFLOW_OP_REQUIRES_OK(ctx, training::check_scalar(momentum, "momentum"));
    apply_update<T, 2>(ctx, g, {"var", "accum"}, grad, [&](const update_buffers<T, 2>& b) {
      launch_apply_momentum<T>(b.in[0], b.out[0], b.in[1], b.out[1], lr.data<T>(), grad.data<T>(),
                               momentum.data<T>(), use_nesterov_, b.n, g.compute_stream());
    });
  }

 private:
  bool use_nesterov_ = false;
};

template <class T>
class apply_adam_op final : public gpu_op_kernel {
 public:
  explicit apply_adam_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &use_nesterov_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    static constexpr std::array<const char*, 6> scalar_names = {
        "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
    std::array<tensor, 6> scalars;
    for (int i = 0; i < 6; ++i) {
      auto t = device_input(ctx, g, 3 + i);
      CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
      scalars[i] = std::move(t).value();
      CAFLOW_OP_REQUIRES_OK(ctx, training::check_scalar(scalars[i], scalar_names[i]));
    }
    CAFLOW_GPU_INPUT(grad, ctx, g, 9);
    const adam_scalars<T> s{scalars[0].data<T>(), scalars[1].data<T>(), scalars[2].data<T>(),
                            scalars[3].data<T>(), scalars[4].data<T>(), scalars[5].data<T>()};
    apply_update<T, 3>(ctx, g, {"var", "m", "v"}, grad, [&](const update_buffers<T, 3>& b) {
      launch_apply_adam<T>(b.in[0], b.out[0], b.in[1], b.out[1], b.in[2], b.out[2], s,
                           grad.data<T>(), use_nesterov_, b.n, g.compute_stream());
    });
  }

 private:
  bool use_nesterov_ = false;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ApplyGradientDescent", device_gpu, "T", apply_gradient_descent_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ApplyMomentum", device_gpu, "T", apply_momentum_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ApplyAdam", device_gpu, "T", apply_adam_op, float, double);

}  // namespace caflow::gpu
