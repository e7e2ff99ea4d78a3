// Softmax and LogSoftmax along the last dimension on CPU: per row, one pass for the maximum
// and one vectorized pass for exp and the sum, then the normalization; rows are spread over
// the intra-op pool when there are many.
#include <cmath>

#include "kernels/common/nn_checks.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/cpu/nn_softmax_rows.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Rough cost of one element (max, exp, normalization) for the pool's shard sizing.
constexpr double softmax_cycles_per_element = 12;

template <class T, bool Log>
class softmax_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_softmax_logits(in.shape()));
    tensor* out = ctx.allocate_output(0, in.shape());
    if (out == nullptr || in.num_elements() == 0) return;
    const int64_t cols = in.dim(in.rank() - 1);
    const int64_t rows = in.num_elements() / cols;
    const T* x = in.data<T>();
    T* y = out->data<T>();
    const double row_bytes = static_cast<double>(cols * sizeof(T));
    cwise::for_range(ctx, rows, cols, row_bytes, row_bytes,
                     softmax_cycles_per_element * static_cast<double>(cols),
                     [=](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r) row(x + r * cols, y + r * cols, cols);
                     });
  }

 private:
  static void row(const T* x, T* y, int64_t n) {
    const T max = softmax_rows::row_max(x, n);
    const T sum = softmax_rows::exp_shifted(x, max, n, y);
    if constexpr (Log) {
      // (x - max) - log(sum) rather than x - (max + log(sum)): log(sum) is small and would be
      // rounded away next to a large max.
      const T log_sum = std::log(sum);
      for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - max) - log_sum;
    } else {
      const T inv_sum = T(1) / sum;
      for (int64_t j = 0; j < n; ++j) y[j] = softmax_rows::probability(x[j] - max, y[j], inv_sum);
    }
  }
};

template <class T>
using softmax_kernel = softmax_op<T, false>;
template <class T>
using log_softmax_kernel = softmax_op<T, true>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Softmax", device_cpu, "T", softmax_kernel, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("LogSoftmax", device_cpu, "T", log_softmax_kernel, float, double);

}  // namespace caflow
