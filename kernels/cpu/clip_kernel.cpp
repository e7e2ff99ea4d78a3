// ClipByValue on CPU: min(max(t, lo), hi) element-wise (TF's order: min with the upper bound
// first, then max with the lower), each bound a scalar or an element per element of t.
#include <algorithm>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class clip_by_value_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& t = ctx.input(0);
    const tensor& lo = ctx.input(1);
    const tensor& hi = ctx.input(2);
    const char* names[] = {"", "clip_value_min", "clip_value_max"};
    for (int i = 1; i <= 2; ++i) {
      const tensor& b = ctx.input(i);
      CAFLOW_OP_REQUIRES(ctx, b.rank() == 0 || b.shape() == t.shape(),
                         errors::invalid_argument(names[i], " of shape ",
                                                  b.shape().to_string(),
                                                  " must be a scalar or have the shape of t ",
                                                  t.shape().to_string()));
    }
    tensor* out = ctx.allocate_output(0, t.shape());
    if (out == nullptr) return;
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    // Stride 0 holds a scalar bound in place.
    const int64_t ls = lo.rank() == 0 ? 0 : 1, hs = hi.rank() == 0 ? 0 : 1;
    T* y = out->data<T>();
    cwise::for_range(ctx, t.num_elements(), 3 * sizeof(T), sizeof(T), 2.0,
                     [=](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i)
                         y[i] = std::max(std::min(x[i], h[i * hs]), l[i * ls]);
                     });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ClipByValue", device_cpu, "T", clip_by_value_op, float, double,
                              int32_t, int64_t, uint8_t);

}  // namespace caflow
