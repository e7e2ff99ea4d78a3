// AddN on CPU: the element-wise sum of N tensors of one shape.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

// Elements summed per block: every input's block stays in cache while the output block
// accumulates, instead of streaming the whole output once per input.
inline constexpr int64_t addn_block = 2048;

template <class T>
class add_n_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const int n = ctx.num_inputs();
    const tensor& first = ctx.input(0);
    for (int i = 1; i < n; ++i) {
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).shape() == first.shape(),
                         errors::invalid_argument("inputs must have the same shape: input 0 is ",
                                                  first.shape().to_string(), " but input ", i,
                                                  " is ", ctx.input(i).shape().to_string()));
    }
    if (n == 1) {
      ctx.set_output(0, first);
      return;
    }
    tensor* out = ctx.allocate_output(0, first.shape());
    if (out == nullptr) return;
    std::vector<const T*> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[i] = ctx.input(i).template data<T>();
    T* o = out->data<T>();
    const T* const* ins = in.data();
    for_range(ctx, first.num_elements(), n * sizeof(T), sizeof(T), n - 1,
              [=](int64_t begin, int64_t end) {
                for (int64_t b = begin; b < end; b += addn_block) {
                  const int64_t e = std::min(end, b + addn_block);
                  for (int64_t j = b; j < e; ++j) o[j] = ins[0][j] + ins[1][j];
                  for (int k = 2; k < n; ++k) {
                    const T* x = ins[k];
                    for (int64_t j = b; j < e; ++j) o[j] += x[j];
                  }
                }
              });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("AddN", device_cpu, "T", add_n_op, float, double, int32_t, int64_t);

}  // namespace caflow::cwise
