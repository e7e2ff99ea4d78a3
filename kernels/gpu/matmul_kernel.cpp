// MatMul on the GPU through cuBLAS. cuBLAS is column-major: a row-major C = op(A) op(B) is
// the column-major C^T = op(B)^T op(A)^T, so the operands go in swapped, nothing is copied.
#include <climits>

#include "kernels/common/matmul_checks.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const float* alpha, const float* a, int lda, const float* b, int ldb,
                    const float* beta, float* c, int ldc) {
  return cublasSgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const double* alpha, const double* a, int lda, const double* b, int ldb,
                    const double* beta, double* c, int ldc) {
  return cublasDgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
class mat_mul_op final : public gpu_op_kernel {
 public:
  explicit mat_mul_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_matmul_params(c, &params_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(a, ctx, g, 0);
    CAFLOW_GPU_INPUT(b, ctx, g, 1);
    auto dims = matmul_dims_for(params_, a.shape(), b.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    const int64_t m = dims->m, k = dims->k, n = dims->n;
    CAFLOW_OP_REQUIRES(ctx, m <= INT_MAX && n <= INT_MAX && k <= INT_MAX,
                       errors::invalid_argument("MatMul dims ", m, "x", k, "x", n,
                                                " exceed cuBLAS's 32-bit sizes"));
    tensor out = allocate_output(ctx, g, 0, dims->output_shape());
    if (!out.initialized() || out.num_elements() == 0) return;
    if (k == 0) {
      launch_fill<T>(out.data<T>(), out.num_elements(), T(0), g.compute_stream());
      return;
    }
    const T one = 1, zero = 0;
    // Leading dims are the stored (row-major) row lengths.
    const int lda = static_cast<int>(a.dim(1)), ldb = static_cast<int>(b.dim(1));
    CAFLOW_CUBLAS_OP_REQUIRES(
        ctx, gemm(g.cublas(), params_.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                  params_.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                  static_cast<int>(m), static_cast<int>(k), &one, b.data<T>(), ldb, a.data<T>(),
                  lda, &zero, out.data<T>(), static_cast<int>(n)));
  }

 private:
  matmul_params params_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MatMul", device_gpu, "T", mat_mul_op, float, double);

}  // namespace caflow::gpu
