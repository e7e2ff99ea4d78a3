// MatMul: Eigen's tensor contraction on the intra-op pool, with transposes expressed as the
// contracted dims (no transposed copy is made). Products too small to repay a thread-pool
// hand-off run on the calling thread.
#include <algorithm>

#include "kernels/common/matmul_checks.hpp"
#include "kernels/cpu/gemm.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Below this many multiply-adds a thread-pool hand-off costs more than the arithmetic.
inline constexpr int64_t small_mat_mul_flops = 32 * 1024;

template <class T>
class mat_mul_op final : public op_kernel {
 public:
  explicit mat_mul_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_matmul_params(c, &params_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& a = ctx.input(0);
    const tensor& b = ctx.input(1);
    auto dims = matmul_dims_for(params_, a.shape(), b.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    tensor* out = ctx.allocate_output(0, dims->output_shape());
    if (out == nullptr || out->num_elements() == 0) return;
    T* c = out->data<T>();
    if (k == 0) {
      std::fill(c, c + m * n, T{0});
      return;
    }
    gemm(a.data<T>(), params_.transpose_a, b.data<T>(), params_.transpose_b, c, m, k, n,
         m * n * k < small_mat_mul_flops ? nullptr : &ctx.eigen_cpu());
  }

 private:
  matmul_params params_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MatMul", device_cpu, "T", mat_mul_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
