#pragma once
// A row-major matrix product through cuBLASLt: C[m, n] = op(A) op(B), planned once per shape
// (layouts, descriptor and the heuristics' algorithm) and run with a workspace the caller passes
// per call, so no state on a shared handle changes between kernels. Full float32 or float64
// compute (CUBLAS_COMPUTE_32F is never TF32), so results match the CPU's to rounding.
#include <cublasLt.h>

#include <array>
#include <memory>

#include "graph/core/status.hpp"

namespace caflow::gpu {

namespace lt_detail {
template <class D, cublasStatus_t (*destroy)(D)>
struct destroyer {
  void operator()(D d) const { (void)destroy(d); }
};
}  // namespace lt_detail

using lt_handle = std::unique_ptr<cublasLtContext, lt_detail::destroyer<cublasLtHandle_t, cublasLtDestroy>>;
using lt_matmul_descriptor =
    std::unique_ptr<cublasLtMatmulDescOpaque_t,
                    lt_detail::destroyer<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>>;
using lt_layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t,
                                  lt_detail::destroyer<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>>;

status_or<lt_handle> make_lt_handle();

// What a plan depends on: m, n, k, both transposes and the alignment (up to 256 bytes) of A, B
// and C, since the chosen kernel may assume it.
struct lt_shape {
  std::array<int64_t, 8> v{};
  bool operator==(const lt_shape&) const = default;
};
lt_shape lt_shape_of(int64_t m, int64_t n, int64_t k, bool transpose_a, bool transpose_b,
                     const void* a, const void* b, const void* c);

struct lt_plan {
  lt_matmul_descriptor desc;
  lt_layout a, b, c;  // cuBLAS's (column-major) view: a holds B's data, b A's (see .cpp)
  cublasLtMatmulAlgo_t algo{};
  size_t workspace_bytes = 0;
};

// The heuristics' first choice for this product of T (float or double) with at most
// max_workspace bytes of workspace; unimplemented when cuBLASLt offers none.
template <class T>
status_or<lt_plan> plan_lt_matmul(cublasLtHandle_t h, const lt_shape& s, size_t max_workspace);

// Queues C = op(A) op(B) on `stream`. REQUIRES a workspace of plan.workspace_bytes.
template <class T>
status run_lt_matmul(cublasLtHandle_t h, const lt_plan& p, const T* a, const T* b, T* c,
                     void* workspace, cudaStream_t stream);

}  // namespace caflow::gpu
