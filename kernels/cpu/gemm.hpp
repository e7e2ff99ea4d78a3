#pragma once
// One matrix product for every CPU kernel that multiplies matrices (MatMul, BatchMatMul,
// Einsum's contractions): out[m,n] = op(a) · op(b) over row-major matrices, where op(a) is a
// transposed when `transpose_a` (a is then [k,m]), likewise b. A transpose is the contracted
// dim, never a copy. Eigen's tensor contraction is instantiated once per type, in gemm.cpp,
// instead of once per kernel class: each instantiation takes the compiler seconds.
#include <cstdint>

namespace Eigen {
class ThreadPoolDevice;
}  // namespace Eigen

namespace caflow {

// On `pool`'s threads, or on the calling thread when `pool` is null.
template <class T>
void gemm(const T* a, bool transpose_a, const T* b, bool transpose_b, T* out, int64_t m,
          int64_t k, int64_t n, const Eigen::ThreadPoolDevice* pool);

extern template void gemm<float>(const float*, bool, const float*, bool, float*, int64_t,
                                 int64_t, int64_t, const Eigen::ThreadPoolDevice*);
extern template void gemm<double>(const double*, bool, const double*, bool, double*, int64_t,
                                  int64_t, int64_t, const Eigen::ThreadPoolDevice*);
extern template void gemm<int32_t>(const int32_t*, bool, const int32_t*, bool, int32_t*,
                                   int64_t, int64_t, int64_t, const Eigen::ThreadPoolDevice*);
extern template void gemm<int64_t>(const int64_t*, bool, const int64_t*, bool, int64_t*,
                                   int64_t, int64_t, int64_t, const Eigen::ThreadPoolDevice*);

}  // namespace caflow
