// Select (TF1 semantics) on CPU: picks elements, or whole rows, from `t` or `e`.
#include <cstring>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

template <class T>
class select_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& cond = ctx.input(0);
    const tensor& t = ctx.input(1);
    const tensor& e = ctx.input(2);
    CAFLOW_OP_REQUIRES(
        ctx, t.shape() == e.shape(),
        errors::invalid_argument("'t' and 'e' must have the same shape: ", t.shape().to_string(),
                                 " vs ", e.shape().to_string()));
    if (cond.rank() == 0) {
      // The whole of one input is the answer: share its bytes.
      ctx.set_output(0, *cond.data<bool>() ? t : e);
      return;
    }
    if (cond.shape() == t.shape()) return select_elements(ctx, cond, t, e);
    CAFLOW_OP_REQUIRES(
        ctx, cond.rank() == 1 && t.rank() >= 1 && cond.dim(0) == t.dim(0),
        errors::invalid_argument(
            "condition must be a scalar, have the shape of 't' (", t.shape().to_string(),
            "), or be a vector as long as its first dimension; got ", cond.shape().to_string()));
    select_rows(ctx, cond, t, e);
  }

 private:
  static void select_elements(kernel_context& ctx, const tensor& cond, const tensor& t,
                              const tensor& e) {
    tensor* out = ctx.allocate_output(0, t.shape());
    if (out == nullptr) return;
    const bool* c = cond.data<bool>();
    const T* a = t.data<T>();
    const T* b = e.data<T>();
    T* o = out->data<T>();
    for_range(ctx, t.num_elements(), 2 * sizeof(T) + 1, sizeof(T), 1,
              [=](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) o[i] = c[i] ? a[i] : b[i];
              });
  }

  static void select_rows(kernel_context& ctx, const tensor& cond, const tensor& t,
                          const tensor& e) {
    tensor* out = ctx.allocate_output(0, t.shape());
    if (out == nullptr) return;
    const int64_t rows = t.dim(0);
    if (t.num_elements() == 0) return;
    const int64_t row = t.num_elements() / rows;
    const bool* c = cond.data<bool>();
    const T* a = t.data<T>();
    const T* b = e.data<T>();
    T* o = out->data<T>();
    const size_t row_bytes = static_cast<size_t>(row) * sizeof(T);
    for_range(ctx, rows, row, row_bytes, row_bytes, 0, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        std::memcpy(o + r * row, (c[r] ? a : b) + r * row, row_bytes);
    });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Select", device_cpu, "T", select_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow::cwise
