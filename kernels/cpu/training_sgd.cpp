// ApplyGradientDescent and ApplyMomentum on the CPU: one fused pass over the variable (and
// its accumulator) per step.
#include "kernels/common/training_math.hpp"
#include "kernels/cpu/training_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class apply_gradient_descent_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    T alpha{};
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 1, "alpha", &alpha));
    const T* delta = ctx.input(2).data<T>();
    training::apply_update<T, 1>(
        ctx, {"var"}, 2, {true}, 2, [=](const training::update_buffers<T, 1>& b, int64_t begin, int64_t end) {
          const T* var_in = b.in[0];
          T* var = b.out[0];
          CAFLOW_UPDATE_LOOP
          for (int64_t i = begin; i < end; ++i) var[i] = var_in[i] - alpha * delta[i];
        });
  }
};

template <class T>
class apply_momentum_op final : public op_kernel {
 public:
  explicit apply_momentum_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &use_nesterov_));
  }
  void compute(kernel_context& ctx) override {
    T lr{}, momentum{};
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 2, "lr", &lr));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 4, "momentum", &momentum));
    const T* grad = ctx.input(3).data<T>();
    const bool nesterov = use_nesterov_;
    training::apply_update<T, 2>(
        ctx, {"var", "accum"}, 3, {true, true}, 5,
        [=](const training::update_buffers<T, 2>& b, int64_t begin, int64_t end) {
          const T *var_in = b.in[0], *accum_in = b.in[1];
          T *var = b.out[0], *accum = b.out[1];
          CAFLOW_UPDATE_LOOP
          for (int64_t i = begin; i < end; ++i) {
            T a = accum_in[i];
            var[i] = training::momentum_update(var_in[i], grad[i], lr, momentum, nesterov, a);
            accum[i] = a;
          }
        });
  }

 private:
  bool use_nesterov_ = false;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ApplyGradientDescent", device_cpu, "T", apply_gradient_descent_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ApplyMomentum", device_cpu, "T", apply_momentum_op, float, double);

}  // namespace caflow
