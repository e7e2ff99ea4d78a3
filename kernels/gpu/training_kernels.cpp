// ApplyGradientDescent, ApplyMomentum and ApplyAdam on the GPU: one fused launch per update.
// Hyperparameters are read by the kernel from device memory, so the host never waits.
//
// As on the CPU, a variable's bytes are updated in place only when it owns them alone; when a
// reader still holds a snapshot, the update writes a fresh buffer that then replaces the value.
#include <algorithm>
#include <array>
#include <numeric>

#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"
#include "kernels/in_place.hpp"

namespace caflow::gpu {
namespace {

template <class T, size_t N>
struct update_buffers {
  std::array<const T*, N> in{};
  std::array<T*, N> out{};
  int64_t n = 0;
};

// Locks the variables behind ref inputs 0 .. N-1 (in address order, so two updates sharing
// variables never wait on each other), checks them against the gradient (input grad_index),
// gives each a writable buffer and runs launch(buffers). Output 0 is the variable's ref.
template <class T, size_t N, class Launch>
void apply_update(kernel_context& ctx, gpu_device& g, const std::array<const char*, N>& names,
                  const tensor& grad, Launch&& launch) {
  std::array<variable*, N> vars{};
  for (size_t i = 0; i < N; ++i) {
    vars[i] = ctx.input_ref(static_cast<int>(i)).get();
    CAFLOW_OP_REQUIRES(ctx, vars[i] != nullptr,
                       errors::invalid_argument(names[i], " is not a variable reference"));
    for (size_t j = 0; j < i; ++j)
      CAFLOW_OP_REQUIRES(ctx, vars[j] != vars[i],
                         errors::invalid_argument("variable '", vars[i]->name(), "' is given as both ",
                                                  names[j], " and ", names[i]));
  }
  std::array<size_t, N> order{};
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vars[a] < vars[b]; });
  std::array<tensor*, N> values{};
  // variable::update holds its lock only during the call; nest the calls to hold all at once.
  auto body = [&](auto&& self, size_t k) -> status {
    if (k == N) {
      for (size_t i = 0; i < N; ++i) {
        if (!values[i]->initialized())
          return errors::failed_precondition("attempting to use uninitialized variable '",
                                             vars[i]->name(), "'");
      }
      const tensor_shape& shape = values[0]->shape();
      for (size_t i = 1; i < N; ++i) {
        if (values[i]->shape() != shape)
          return errors::invalid_argument(names[i], " '", vars[i]->name(), "' of shape ",
                                          values[i]->shape().to_string(), " does not match var '",
                                          vars[0]->name(), "' of shape ", shape.to_string());
      }
      if (grad.shape() != shape)
        return errors::invalid_argument("gradient of shape ", grad.shape().to_string(),
                                        " does not match var '", vars[0]->name(), "' of shape ",
                                        shape.to_string());
      update_buffers<T, N> b;
      b.n = shape.num_elements();
      std::array<tensor, N> fresh;
      for (size_t i = 0; i < N; ++i) {
        b.in[i] = values[i]->template data<T>();
        if (mutable_in_place(*values[i])) {
          b.out[i] = values[i]->template data<T>();
        } else {
          CAFLOW_ASSIGN_OR_RETURN(fresh[i], g.allocate(dtype_v<T>, shape));
          b.out[i] = fresh[i].template data<T>();
        }
      }
      launch(b);
      for (size_t i = 0; i < N; ++i)
        if (fresh[i].initialized()) *values[i] = std::move(fresh[i]);
      return {};
    }
    return vars[order[k]]->update([&](tensor& value) -> status {
      values[order[k]] = &value;
      return self(self, k + 1);
    });
  };
  CAFLOW_OP_REQUIRES_OK(ctx, body(body, 0));
  ctx.set_output_ref(0, ctx.input_ref(0));
}

status check_scalar(const tensor& t, const char* name) {
  if (t.rank() != 0)
    return errors::invalid_argument(name, " must be a scalar but has shape ", t.shape().to_string());
  return {};
}

template <class T>
class apply_gradient_descent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(alpha, ctx, g, 1);
    CAFLOW_GPU_INPUT(delta, ctx, g, 2);
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(alpha, "alpha"));
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
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(lr, "lr"));
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(momentum, "momentum"));
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
      CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(scalars[i], scalar_names[i]));
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
