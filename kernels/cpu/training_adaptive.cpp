// ApplyAdam, ApplyAdagrad and ApplyRMSProp on the CPU: one fused pass over the variable and
// its slot variables per step, with the same arithmetic as TensorFlow's CPU functors.
#include <cmath>

#include "kernels/common/training_math.hpp"
#include "kernels/cpu/training_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class apply_adam_op final : public op_kernel {
 public:
  explicit apply_adam_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &use_nesterov_));
  }
  void compute(kernel_context& ctx) override {
    T beta1_power, beta2_power, lr, beta1, beta2, epsilon;
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 3, "beta1_power", &beta1_power));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 4, "beta2_power", &beta2_power));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 5, "lr", &lr));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 6, "beta1", &beta1));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 7, "beta2", &beta2));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 8, "epsilon", &epsilon));
    const T* grad = ctx.input(9).data<T>();
    const training::adam_step<T> step =
        training::make_adam_step(beta1_power, beta2_power, lr, beta1, beta2, epsilon);
    auto update = [=]<bool nesterov>(const training::update_buffers<T, 3>& b, int64_t begin,
                                     int64_t end) {
      const T *var_in = b.in[0], *m_in = b.in[1], *v_in = b.in[2];
      T *var = b.out[0], *m = b.out[1], *v = b.out[2];
      CAFLOW_UPDATE_LOOP
      for (int64_t i = begin; i < end; ++i) {
        T mi = m_in[i], vi = v_in[i];
        var[i] = training::adam_update(var_in[i], grad[i], step, nesterov, mi, vi);
        m[i] = mi;
        v[i] = vi;
      }
    };
    auto run = [&](auto&& loop) {
      training::apply_update<T, 3>(ctx, {"var", "m", "v"}, 9, {true, true, true}, 12, loop);
    };
    if (use_nesterov_)
      run([&](const auto& b, int64_t begin, int64_t end) {
        update.template operator()<true>(b, begin, end);
      });
    else
      run([&](const auto& b, int64_t begin, int64_t end) {
        update.template operator()<false>(b, begin, end);
      });
  }

 private:
  bool use_nesterov_ = false;
};

template <class T>
class apply_adagrad_op final : public op_kernel {
 public:
  explicit apply_adagrad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("update_slots", &update_slots_));
  }
  void compute(kernel_context& ctx) override {
    T lr;
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 2, "lr", &lr));
    const T* grad = ctx.input(3).data<T>();
    auto loop = [=]<bool update_slots>(const training::update_buffers<T, 2>& b, int64_t begin,
                                       int64_t end) {
      const T *var_in = b.in[0], *accum_in = b.in[1];
      T *var = b.out[0], *accum = b.out[1];
      CAFLOW_UPDATE_LOOP
      for (int64_t i = begin; i < end; ++i) {
        const T g = grad[i];
        T a = accum_in[i];
        if constexpr (update_slots) {
          a += g * g;
          accum[i] = a;
        }
        var[i] = var_in[i] - lr * g / std::sqrt(a);
      }
    };
    if (update_slots_) {
      training::apply_update<T, 2>(ctx, {"var", "accum"}, 3, {true, true}, 8,
                                   [&](const auto& b, int64_t begin, int64_t end) {
                                     loop.template operator()<true>(b, begin, end);
                                   });
    } else {
      training::apply_update<T, 2>(ctx, {"var", "accum"}, 3, {true, false}, 7,
                                   [&](const auto& b, int64_t begin, int64_t end) {
                                     loop.template operator()<false>(b, begin, end);
                                   });
    }
  }

 private:
  bool update_slots_ = true;
};

template <class T>
class apply_rms_prop_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    T lr, rho, momentum, epsilon;
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 3, "lr", &lr));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 4, "rho", &rho));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 5, "momentum", &momentum));
    CAFLOW_OP_REQUIRES_OK(ctx, training::scalar_input(ctx, 6, "epsilon", &epsilon));
    const T* grad = ctx.input(7).data<T>();
    const T one_minus_rho = T(1) - rho;
    training::apply_update<T, 3>(
        ctx, {"var", "ms", "mom"}, 7, {true, true, true}, 10,
        [=](const training::update_buffers<T, 3>& b, int64_t begin, int64_t end) {
          const T *var_in = b.in[0], *ms_in = b.in[1], *mom_in = b.in[2];
          T *var = b.out[0], *ms = b.out[1], *mom = b.out[2];
          CAFLOW_UPDATE_LOOP
          for (int64_t i = begin; i < end; ++i) {
            const T g = grad[i];
            const T msi = ms_in[i] + (g * g - ms_in[i]) * one_minus_rho;
            const T momi = mom_in[i] * momentum + lr * g / std::sqrt(msi + epsilon);
            ms[i] = msi;
            mom[i] = momi;
            var[i] = var_in[i] - momi;
          }
        });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ApplyAdam", device_cpu, "T", apply_adam_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ApplyAdagrad", device_cpu, "T", apply_adagrad_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ApplyRMSProp", device_cpu, "T", apply_rms_prop_op, float, double);

}  // namespace caflow
