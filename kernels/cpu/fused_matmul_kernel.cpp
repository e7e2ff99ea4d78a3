// _FusedMatMul on the CPU: MatMul's product with the epilogue (fused_epilogue.hpp) applied by
// Eigen's contraction to each finished output block (gemm_epilogue.hpp).
#include <algorithm>

#include "graph/util/fused_op_spec.hpp"
#include "kernels/common/matmul_checks.hpp"
#include "kernels/cpu/gemm_epilogue.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// As MatMul's (matmul_kernel.cpp): below this many multiply-adds the pool costs more.
inline constexpr int64_t small_mat_mul_flops = 32 * 1024;

template <class T>
class fused_mat_mul_op final : public op_kernel {
 public:
  explicit fused_mat_mul_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_matmul_params(c, &params_));
    auto spec = parse_fused_op_spec(c.def(), /*batch_norm_allowed=*/false);
    CAFLOW_OP_REQUIRES_OK(c, spec.get_status());
    spec_ = std::move(*spec);
  }

  void compute(kernel_context& ctx) override {
    const tensor& a = ctx.input(0);
    const tensor& b = ctx.input(1);
    auto dims = matmul_dims_for(params_, a.shape(), b.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    auto epilogue = channel_epilogue<T>::make(spec_, ctx, 2, n);
    CAFLOW_OP_REQUIRES_OK(ctx, epilogue.get_status());
    tensor* out = ctx.allocate_output(0, dims->output_shape());
    if (out == nullptr || out->num_elements() == 0) return;
    T* c = out->data<T>();
    if (k == 0) {
      std::fill(c, c + m * n, T{0});
      epilogue->apply_rows(c, m);
      return;
    }
    gemm_epilogue(a.data<T>(), params_.transpose_a, b.data<T>(), params_.transpose_b, c, m, k, n,
                  m * n * k < small_mat_mul_flops ? nullptr : &ctx.eigen_cpu(), *epilogue);
  }

 private:
  matmul_params params_;
  fused_op_spec spec_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("_FusedMatMul", device_cpu, "T", fused_mat_mul_op, float, double);

}  // namespace caflow
