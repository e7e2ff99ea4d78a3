#include "kernels/gpu/lt_matmul.hpp"

#include "devices/gpu/cuda_status.hpp"

namespace caflow::gpu {
namespace {

template <class T>
constexpr cudaDataType_t data_type = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
template <class T>
constexpr cublasComputeType_t compute_type =
    std::is_same_v<T, float> ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;

int64_t alignment_of(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  int64_t align = 256;
  while (align > 1 && a % static_cast<uintptr_t>(align) != 0) align /= 2;
  return align;
}

template <class T>
status_or<lt_layout> make_layout(uint64_t rows, uint64_t cols, int64_t ld) {
  cublasLtMatrixLayout_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(cublas_status(cublasLtMatrixLayoutCreate(&raw, data_type<T>, rows, cols, ld),
                                       "cublasLtMatrixLayoutCreate"));
  return lt_layout(raw);
}

struct preference_deleter {
  void operator()(cublasLtMatmulPreference_t p) const { (void)cublasLtMatmulPreferenceDestroy(p); }
};

}  // namespace

status_or<lt_handle> make_lt_handle() {
  cublasLtHandle_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(cublas_status(cublasLtCreate(&raw), "cublasLtCreate"));
  return lt_handle(raw);
}

lt_shape lt_shape_of(int64_t m, int64_t n, int64_t k, bool transpose_a, bool transpose_b,
                     const void* a, const void* b, const void* c) {
  return {{m, n, k, (transpose_a ? 1 : 0) + (transpose_b ? 2 : 0), alignment_of(a), alignment_of(b),
           alignment_of(c), 0}};
}

// cuBLAS is column-major: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T,
// so B's data is cuBLAS's first operand and A's the second; nothing is copied. A stored
// row-major [r, c] matrix is a column-major [c, r] one with leading dim c.
template <class T>
status_or<lt_plan> plan_lt_matmul(cublasLtHandle_t h, const lt_shape& s, size_t max_workspace) {
  const int64_t m = s.v[0], n = s.v[1], k = s.v[2];
  const bool ta = s.v[3] & 1, tb = s.v[3] & 2;
  lt_plan p;
  cublasLtMatmulDesc_t desc = nullptr;
  CAFLOW_RETURN_IF_ERROR(cublas_status(
      cublasLtMatmulDescCreate(&desc, compute_type<T>, data_type<T>), "cublasLtMatmulDescCreate"));
  p.desc.reset(desc);
  const cublasOperation_t op_first = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  CAFLOW_RETURN_IF_ERROR(cublas_status(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first),
      "cublasLtMatmulDescSetAttribute"));
  CAFLOW_RETURN_IF_ERROR(cublas_status(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second),
      "cublasLtMatmulDescSetAttribute"));
  // B is stored [k, n] (or [n, k] transposed), A [m, k] (or [k, m]).
  const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  CAFLOW_ASSIGN_OR_RETURN(p.a, make_layout<T>(b_cols, b_rows, b_cols));
  CAFLOW_ASSIGN_OR_RETURN(p.b, make_layout<T>(a_cols, a_rows, a_cols));
  CAFLOW_ASSIGN_OR_RETURN(p.c, make_layout<T>(n, m, n));

  cublasLtMatmulPreference_t raw_pref = nullptr;
  CAFLOW_RETURN_IF_ERROR(cublas_status(cublasLtMatmulPreferenceCreate(&raw_pref),
                                       "cublasLtMatmulPreferenceCreate"));
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, preference_deleter> pref(raw_pref);
  const uint64_t ws = max_workspace;
  CAFLOW_RETURN_IF_ERROR(cublas_status(
      cublasLtMatmulPreferenceSetAttribute(raw_pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                           sizeof ws),
      "cublasLtMatmulPreferenceSetAttribute"));
  // The heuristics otherwise assume 256-byte aligned operands.
  const uint32_t align[3] = {static_cast<uint32_t>(s.v[5]), static_cast<uint32_t>(s.v[4]),
                             static_cast<uint32_t>(s.v[6])};  // cuBLAS's A = B's data, B = A's
  const cublasLtMatmulPreferenceAttributes_t align_attr[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i) {
    const uint32_t a = align[i < 3 ? i : 2];
    CAFLOW_RETURN_IF_ERROR(cublas_status(
        cublasLtMatmulPreferenceSetAttribute(raw_pref, align_attr[i], &a, sizeof a),
        "cublasLtMatmulPreferenceSetAttribute"));
  }
  cublasLtMatmulHeuristicResult_t result{};
  int count = 0;
  CAFLOW_RETURN_IF_ERROR(cublas_status(
      cublasLtMatmulAlgoGetHeuristic(h, desc, p.a.get(), p.b.get(), p.c.get(), p.c.get(), raw_pref, 1,
                                     &result, &count),
      "cublasLtMatmulAlgoGetHeuristic"));
  if (count == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    return errors::unimplemented("cuBLASLt has no algorithm for a ", m, "x", k, "x", n, " product");
  p.algo = result.algo;
  p.workspace_bytes = result.workspaceSize;
  return p;
}

template <class T>
status run_lt_matmul(cublasLtHandle_t h, const lt_plan& p, const T* a, const T* b, T* c,
                     void* workspace, cudaStream_t stream) {
  const T one = 1, zero = 0;
  return cublas_status(cublasLtMatmul(h, p.desc.get(), &one, b, p.a.get(), a, p.b.get(), &zero, c,
                                      p.c.get(), c, p.c.get(), &p.algo, workspace,
                                      p.workspace_bytes, stream),
                       "cublasLtMatmul");
}

template status_or<lt_plan> plan_lt_matmul<float>(cublasLtHandle_t, const lt_shape&, size_t);
template status_or<lt_plan> plan_lt_matmul<double>(cublasLtHandle_t, const lt_shape&, size_t);
template status run_lt_matmul<float>(cublasLtHandle_t, const lt_plan&, const float*, const float*,
                                     float*, void*, cudaStream_t);
template status run_lt_matmul<double>(cublasLtHandle_t, const lt_plan&, const double*,
                                      const double*, double*, void*, cudaStream_t);

}  // namespace caflow::gpu
