// SparseApplyGradientDescent, SparseApplyMomentum, SparseApplyAdagrad, SparseApplyRMSProp and
// SparseApplyFtrl on the CPU: the dense
// optimizers' per-element formulas applied to the rows of var (and its slots) that `indices`
// names, one row after another in index order, so a repeated index applies each of its
// gradient rows in turn (as TensorFlow's CPU kernels do). The variables are locked and
// checked, and every index validated, before the first write (kernels/common/training_update).
#include <cmath>
#include <cstring>

#include "kernels/common/training_math.hpp"
#include "kernels/common/training_update.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// grad is [len(indices)] + var.shape[1:], indices a vector; checked before locking.
status check_sparse_args(const tensor& grad, const tensor& indices) {
  if (indices.rank() != 1)
    return errors::invalid_argument("indices must be a vector, got shape ",
                                    indices.shape().to_string());
  if (grad.rank() < 1 || grad.dim(0) != indices.dim(0))
    return errors::invalid_argument("grad of shape ", grad.shape().to_string(),
                                    " must have one row per index, but indices has shape ",
                                    indices.shape().to_string());
  return {};
}

// Under the locks: grad's rows have var's row shape and every index names a row of var.
template <class Index>
status check_rows(const tensor& grad, const tensor& indices, const variable& var,
                  const tensor& value) {
  bool rows_match = value.rank() >= 1 && value.rank() == grad.rank();
  for (int d = 1; rows_match && d < value.rank(); ++d) rows_match = value.dim(d) == grad.dim(d);
  if (!rows_match)
    return errors::invalid_argument("grad of shape ", grad.shape().to_string(),
                                    " does not match var '", var.name(), "' of shape ",
                                    value.shape().to_string(), " in dimensions 1 and up");
  const Index* idx = indices.data<Index>();
  for (int64_t k = 0; k < indices.num_elements(); ++k)
    if (idx[k] < 0 || idx[k] >= value.dim(0))
      return errors::invalid_argument("indices[", k, "] = ", idx[k], " is not in [0, ",
                                      value.dim(0), "), the first dimension of var '", var.name(),
                                      "' of shape ", value.shape().to_string());
  return {};
}

// Runs row_update(bufs, var_row_offset, grad_row, row_length) for each index in order, with
// the var's and slots' locks held. A slot copied because a reader shares its buffer gets the
// old values first: only the named rows are rewritten.
template <class T, class Index, size_t N, class RowUpdate>
void sparse_update(kernel_context& ctx, const std::array<const char*, N>& names, int grad_index,
                   const std::array<bool, N>& writes, RowUpdate&& row_update) {
  const tensor& grad = ctx.input(grad_index);
  const tensor& indices = ctx.input(grad_index + 1);
  CAFLOW_OP_REQUIRES_OK(ctx, check_sparse_args(grad, indices));
  auto check = [&](const tensor& value, const variable& var) {
    return check_rows<Index>(grad, indices, var, value);
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
          for (int64_t j = 0; j < row; ++j) {
            ms[j] += (g[j] * g[j] - ms[j]) * (T(1) - rho);
            mom[j] = mom[j] * momentum + lr * g[j] / std::sqrt(ms[j] + epsilon);
            var[j] -= mom[j];
          }
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
            if (update_slots) accum[j] = a = a + g[j] * g[j];
            var[j] -= lr * g[j] / std::sqrt(a);
          }
        });
  }

 private:
  bool update_slots_ = true;
};

// One element of FTRL-Proximal; `accum` and `linear` are updated in place.
template <class T>
T ftrl_update(T var, T g, T lr, T l1, T l2, T lr_power, T& accum, T& linear) {
  const T new_accum = accum + g * g;
  // accum^-lr_power; lr_power = -0.5 (the usual choice) is a square root.
  auto power = [&](T a) { return lr_power == T(-0.5) ? std::sqrt(a) : std::pow(a, -lr_power); };
  const T new_power = power(new_accum);
  linear += g - (new_power - power(accum)) / lr * var;
  accum = new_accum;
  const T quadratic = new_power / lr + T(2) * l2;
  if (std::abs(linear) <= l1) return T(0);
  return ((linear > T(0) ? l1 : -l1) - linear) / quadratic;
}

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
    // As TF: the formulas divide by lr and assume non-negative regularization strengths.
    CAFLOW_OP_REQUIRES(ctx, lr > T(0), errors::invalid_argument("lr must be positive, got ", lr));
    CAFLOW_OP_REQUIRES(ctx, l1 >= T(0),
                       errors::invalid_argument("l1 must be non-negative, got ", l1));
    CAFLOW_OP_REQUIRES(ctx, l2 >= T(0),
                       errors::invalid_argument("l2 must be non-negative, got ", l2));
    CAFLOW_OP_REQUIRES(ctx, lr_power <= T(0),
                       errors::invalid_argument("lr_power must not be positive, got ", lr_power));
    sparse_update<T, Index, 3>(
        ctx, {"var", "accum", "linear"}, 3, {true, true, true},
        [=](const training::update_buffers<T, 3>& b, int64_t at, const T* g, int64_t row) {
          T *var = b.out[0] + at, *accum = b.out[1] + at, *linear = b.out[2] + at;
          for (int64_t j = 0; j < row; ++j)
            var[j] = ftrl_update(var[j], g[j], lr, l1, l2, lr_power, accum[j], linear[j]);
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
