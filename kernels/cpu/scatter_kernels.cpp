// ScatterUpdate, ScatterAdd, ScatterSub, ScatterMul, ScatterDiv, ScatterMin and ScatterMax: row
// updates of a variable, under its lock. All
// shapes and indices are checked before the first write, so a failed step leaves the variable
// as it was. The rows are written in place when the variable owns its buffer alone; when a
// reader still holds a snapshot (or the value is an Assign'ed Const's tensor) the variable is
// copied first, so the reader keeps seeing the old value.
#include <cstring>

#include "kernels/common/sparse_update_checks.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow {
namespace {

enum class scatter_kind { update, add, sub, mul, div, min, max };

template <class T, class Index, scatter_kind kind>
class scatter_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    CAFLOW_OP_REQUIRES(ctx, var != nullptr,
                       errors::invalid_argument("ref is not a variable reference"));
    const tensor& indices = ctx.input(1);
    const tensor& updates = ctx.input(2);
    status st = var->update_initialized([&](tensor& value) -> status {
      CAFLOW_RETURN_IF_ERROR(sparse_checks::scatter_updates(value, *var, indices, updates));
      CAFLOW_RETURN_IF_ERROR(sparse_checks::scatter_indices<Index>(indices, *var, value));
      const int64_t n = indices.num_elements();
      if (n == 0) return {};
      make_updatable(value, ctx.dev());
      const int64_t row = value.dim(0) == 0 ? 0 : value.num_elements() / value.dim(0);
      T* v = value.data<T>();
      const Index* idx = indices.data<Index>();
      const T* u = updates.data<T>();
      const bool scalar = updates.rank() == 0;
      // Row by row in index order: a repeated index sees the earlier updates of its row.
      for (int64_t k = 0; k < n; ++k) {
        T* dst = v + idx[k] * row;
        const T* src = scalar ? u : u + k * row;
        for (int64_t j = 0; j < row; ++j) {
          const T x = scalar ? src[0] : src[j];
          if constexpr (kind == scatter_kind::update)
            dst[j] = x;
          else if constexpr (kind == scatter_kind::add)
            dst[j] += x;
          else if constexpr (kind == scatter_kind::sub)
            dst[j] -= x;
          else if constexpr (kind == scatter_kind::mul)
            dst[j] *= x;
          else if constexpr (kind == scatter_kind::div)
            dst[j] /= x;
          else if constexpr (kind == scatter_kind::min)
            dst[j] = x < dst[j] ? x : dst[j];
          else
            dst[j] = x > dst[j] ? x : dst[j];
        }
      }
      return {};
    });
    CAFLOW_OP_REQUIRES_OK(ctx, st);
    ctx.set_output_ref(0, var);
  }
};

}  // namespace

#define CAFLOW_REGISTER_SCATTER_INDEX(op, kind, T, Index)         \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder(op)                   \
                             .device(device_cpu)                  \
                             .type_constraint<T>("T")             \
                             .type_constraint<Index>("Tindices"), \
                         scatter_op<T, Index, scatter_kind::kind>)
#define CAFLOW_REGISTER_SCATTER(T)                                    \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterUpdate", update, T, int32_t); \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterUpdate", update, T, int64_t); \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterAdd", add, T, int32_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterAdd", add, T, int64_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterSub", sub, T, int32_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterSub", sub, T, int64_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMul", mul, T, int32_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMul", mul, T, int64_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMin", min, T, int32_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMin", min, T, int64_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMax", max, T, int32_t);       \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterMax", max, T, int64_t)
// ScatterDiv by an integer zero would trap: float types only.
#define CAFLOW_REGISTER_SCATTER_DIV(T)                            \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterDiv", div, T, int32_t); \
  CAFLOW_REGISTER_SCATTER_INDEX("ScatterDiv", div, T, int64_t)

CAFLOW_REGISTER_SCATTER(float);
CAFLOW_REGISTER_SCATTER(double);
CAFLOW_REGISTER_SCATTER(int32_t);
CAFLOW_REGISTER_SCATTER(int64_t);
CAFLOW_REGISTER_SCATTER_DIV(float);
CAFLOW_REGISTER_SCATTER_DIV(double);
#undef CAFLOW_REGISTER_SCATTER_DIV
#undef CAFLOW_REGISTER_SCATTER
#undef CAFLOW_REGISTER_SCATTER_INDEX

}  // namespace caflow
