// Prelu on CPU: x > 0 ? x : alpha * x, with alpha broadcast to x's shape. A per-channel alpha
// (as long as x's last dim) or a scalar one takes a row loop; any other broadcast walks runs.
#include "kernels/cpu/broadcast_runs.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

template <class T>
class prelu_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& alpha = ctx.input(1);
    bool fits = alpha.rank() <= x.rank();
    for (int i = 0; fits && i < alpha.rank(); ++i) {
      const int64_t a = alpha.dim(alpha.rank() - 1 - i), d = x.dim(x.rank() - 1 - i);
      fits = a == d || a == 1;
    }
    CAFLOW_OP_REQUIRES(ctx, fits,
                       errors::invalid_argument("alpha of shape ", alpha.shape().to_string(),
                                                " must broadcast to x of shape ",
                                                x.shape().to_string()));
    tensor* out = ctx.allocate_output(0, x.shape());
    if (out == nullptr || x.num_elements() == 0) return;
    const T* xs = x.data<T>();
    const T* as = alpha.data<T>();
    T* ys = out->data<T>();
    const int64_t cols = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    if (alpha.num_elements() == 1 || (alpha.num_elements() == cols && cols > 0 &&
                                      alpha.rank() >= 1 && alpha.dim(alpha.rank() - 1) == cols)) {
      const int64_t step = alpha.num_elements() == 1 ? 0 : 1;
      const double row_bytes = static_cast<double>(cols * sizeof(T));
      for_range(ctx, x.num_elements() / cols, cols, row_bytes, row_bytes,
                static_cast<double>(cols), [=](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r)
                    rows(xs + r * cols, as, step, ys + r * cols, cols);
                });
      return;
    }
    for_each_broadcast_run<2>(
        x.shape(), {x.shape(), alpha.shape()},
        [=](int64_t at, const std::array<int64_t, 2>& in, const std::array<int64_t, 2>& step,
            int64_t n) { rows(xs + at, as + in[1], step[1], ys + at, n); });
  }

 private:
  static void rows(const T* __restrict x, const T* __restrict a, int64_t step, T* __restrict y,
                   int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : a[i * step] * x[i];
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Prelu", device_cpu, "T", prelu_op, float, double);

}  // namespace caflow::cwise
