// SparseApplyGradientDescent, SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp and
// SparseApplyFtrl on the CPU: the dense
// optimizers' per-element formulas applied to the rows of var (and its slots) that `indices`
// names, one row after another in index order, so a repeated index applies each of its
// gradient rows in turn (as TensorFlow's CPU kernels do). The variables are locked and
// checked, and every index validated, before the first write (kernels/common/training_update).
#include <cstring>

#include "kernels/common/sparse_update_checks.hpp"
#include "kernels/common/training_math.hpp"
#include "kernels/common/training_update.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Runs row_update(bufs, var_row_offset, grad_row, row_length) for each index in order, with
// the var's and slots' locks held. A slot copied because a reader shares its buffer gets the
// old values first: only the named rows are rewritten.
template <class T, class Index, size_t N, class RowUpdate>
void sparse_update(kernel_context& ctx, const std::array<const char*, N>& names, int grad_index,
                   const std::array<bool, N>& writes, RowUpdate&& row_update) {
  const tensor& grad = ctx.input(grad_index);
  const tensor& indices = ctx.input(grad_index + 1);
  CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::sparse_apply_args(grad, indices));
  auto check = [&](const tensor& value, const variable& var) {
    return sparse_checks::sparse_apply_rows<Index>(grad, indices, var, value);
  };
  auto allocate = [&](dtype type, const tensor_shape& shape) {
    return tensor::allocate(ctx.dev().variable_allocator(), type, shape);
  };
  auto run = [&](const training::update_buffers<T, N>& b) {
    for (size_t i = 0; i < N; ++i)
      if (b.out[i] != nullptr && b.out[i] != b.in[i] && b.n > 0)
        std::memcpy(b.out[i], b.in[i], static_cast<size_t>(b.n) * sizeof(T));
    const int64_t row = grad.dim(0) == 0 ? 0 : grad.num_elements() / grad.dim(0);
    const Index* idx = indices.data<Index>();
    const T* g = grad.data<T>();
    for (int64_t k = 0; k < indices.num_elements(); ++k)
      row_update(b, idx[k] * row, g + k * row, row);
  };
  training::locked_update_checked<T, N>(ctx, names, check, writes, allocate, run);
}

template <class T>
T scalar_arg(kernel_context& ctx, int i, const char* name) {
  const tensor& t = ctx.input(i);
  if (status st = training::check_scalar(t, name); !st.ok()) {
    ctx.set_status(st);
    return T{};
  }
  return t.scalar_value<T>();
}

template <class T, class Index>
class sparse_apply_gradient_descent_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const T alpha = scalar_arg<T>(ctx, 1, "alpha");
    if (!ctx.ok()) return;
    sparse_update<T, Index, 1>(
        ctx, {"var"}, 2, {true},
        [=](const training::update_buffers<T, 1>& b, int64_t at, const T* g, int64_t row) {
          T* var = b.out[0] + at;
          for (int64_t j = 0; j < row; ++j) var[j] -= alpha * g[j];
        });
  }
};

template <class T, class Index>
class sparse_apply_rms_prop_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const T lr = scalar_arg<T>(ctx, 3, "lr");
    const T rho = scalar_arg<T>(ctx, 4, "rho");
    const T momentum = scalar_arg<T>(ctx, 5, "momentum");
    const T epsilon = scalar_arg<T>(ctx, 6, "epsilon");
    if (!ctx.ok()) return;
    sparse_update<T, Index, 3>(
        ctx, {"var", "ms", "mom"}, 7, {true, true, true},
        [=](const training::update_buffers<T, 3>& b, int64_t at, const T* g, int64_t row) {
          T *var = b.out[0] + at, *ms = b.out[1] + at, *mom = b.out[2] + at;
          for (int64_t j = 0; j < row; ++j)
            var[j] = training::rms_prop_update(var[j], g[j], lr, rho, momentum, epsilon, ms[j],
                                               mom[j]);
        });
  }
};

template <class T, class Index>
class sparse_apply_momentum_op final : public op_kernel {
 public:
  explicit sparse_apply_momentum_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &use_nesterov_));
  }
  void compute(kernel_context& ctx) override {
    const T lr = scalar_arg<T>(ctx, 2, "lr");
    const T momentum = scalar_arg<T>(ctx, 5, "momentum");
    if (!ctx.ok()) return;
    const bool nesterov = use_nesterov_;
    sparse_update<T, Index, 2>(
        ctx, {"var", "accum"}, 3, {true, true},
        [=](const training::update_buffers<T, 2>& b, int64_t at, const T* g, int64_t row) {
          T *var = b.out[0] + at, *accum = b.out[1] + at;
          for (int64_t j = 0; j < row; ++j)
            var[j] = training::momentum_update(var[j], g[j], lr, momentum, nesterov, accum[j]);
        });
  }

 private:
  bool use_nesterov_ = false;
};

template <class T, class Index>
class sparse_apply_adagrad_op final : public op_kernel {
 public:
  explicit sparse_apply_adagrad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("update_slots", &update_slots_));
  }
  void compute(kernel_context& ctx) override {
    const T lr = scalar_arg<T>(ctx, 2, "lr");
    if (!ctx.ok()) return;
    const bool update_slots = update_slots_;
    sparse_update<T, Index, 2>(
        ctx, {"var", "accum"}, 3, {true, update_slots},
        [=](const training::update_buffers<T, 2>& b, int64_t at, const T* g, int64_t row) {
          T* var = b.out[0] + at;
          // With update_slots the current accum is in `out` (a repeated index must see its
          // earlier update there); without, accum is only read and has no out buffer.
          T* accum = update_slots ? b.out[1] + at : nullptr;
          const T* accum_now = update_slots ? accum : b.in[1] + at;
          for (int64_t j = 0; j < row; ++j) {
            T a = accum_now[j];
            var[j] = training::adagrad_update(var[j], g[j], lr, update_slots, a);
            if (update_slots) accum[j] = a;
          }
        });
  }

 private:
  bool update_slots_ = true;
};

template <class T, class Index>
class sparse_apply_ftrl_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const T lr = scalar_arg<T>(ctx, 5, "lr");
    const T l1 = scalar_arg<T>(ctx, 6, "l1");
    const T l2 = scalar_arg<T>(ctx, 7, "l2");
    const T lr_power = scalar_arg<T>(ctx, 8, "lr_power");
    if (!ctx.ok()) return;
    CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::ftrl_hyperparameters(lr, l1, l2, lr_power));
    sparse_update<T, Index, 3>(
        ctx, {"var", "accum", "linear"}, 3, {true, true, true},
        [=](const training::update_buffers<T, 3>& b, int64_t at, const T* g, int64_t row) {
          T *var = b.out[0] + at, *accum = b.out[1] + at, *linear = b.out[2] + at;
          for (int64_t j = 0; j < row; ++j)
            var[j] = training::ftrl_update(var[j], g[j], lr, l1, l2, lr_power, accum[j],
                                           linear[j]);
        });
  }
};

}  // namespace

#define CAFLOW_REGISTER_SPARSE_APPLY(op, kernel, T, Index)        \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder(op)                   \
                             .device(device_cpu)                  \
                             .type_constraint<T>("T")             \
                             .type_constraint<Index>("Tindices"), \
                         kernel<T, Index>)
#define CAFLOW_REGISTER_SPARSE_APPLY_ALL(T)                                                  \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyGradientDescent", sparse_apply_gradient_descent_op, T, \
                               int32_t);                                                     \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyGradientDescent", sparse_apply_gradient_descent_op, T, \
                               int64_t);                                                     \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyRMSProp", sparse_apply_rms_prop_op, T, int32_t);  \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyRMSProp", sparse_apply_rms_prop_op, T, int64_t);  \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyMomentum", sparse_apply_momentum_op, T, int32_t); \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyMomentum", sparse_apply_momentum_op, T, int64_t); \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyAdagrad", sparse_apply_adagrad_op, T, int32_t);   \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyAdagrad", sparse_apply_adagrad_op, T, int64_t);   \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyFtrl", sparse_apply_ftrl_op, T, int32_t);         \
  CAFLOW_REGISTER_SPARSE_APPLY("SparseApplyFtrl", sparse_apply_ftrl_op, T, int64_t)

CAFLOW_REGISTER_SPARSE_APPLY_ALL(float);
CAFLOW_REGISTER_SPARSE_APPLY_ALL(double);
#undef CAFLOW_REGISTER_SPARSE_APPLY_ALL
#undef CAFLOW_REGISTER_SPARSE_APPLY

}  // namespace caflow
