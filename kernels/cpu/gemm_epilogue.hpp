#pragma once
// gemm (kernels/cpu/gemm.hpp) with an epilogue fused into the product: Eigen's contraction
// calls the epilogue (kernels/cpu/fused_epilogue.hpp) on each block of the output as soon as
// the block is final, while it is in cache, so _FusedMatMul writes its output once. The
// epilogue's channels are the output's columns (n). Instantiated once per type in
// gemm_epilogue_<type>.cpp, like gemm.
#include <cstdint>

#include "kernels/cpu/fused_epilogue.hpp"

namespace Eigen {
class ThreadPoolDevice;
}  // namespace Eigen

namespace caflow {

// out[m,n] = epilogue(op(a) · op(b)). REQUIRES: epilogue.channels() == n, k > 0.
template <class T>
void gemm_epilogue(const T* a, bool transpose_a, const T* b, bool transpose_b, T* out,
                   int64_t m, int64_t k, int64_t n, const Eigen::ThreadPoolDevice* pool,
                   const channel_epilogue<T>& epilogue);

extern template void gemm_epilogue<float>(const float*, bool, const float*, bool, float*,
                                          int64_t, int64_t, int64_t,
                                          const Eigen::ThreadPoolDevice*,
                                          const channel_epilogue<float>&);
extern template void gemm_epilogue<double>(const double*, bool, const double*, bool, double*,
                                           int64_t, int64_t, int64_t,
                                           const Eigen::ThreadPoolDevice*,
                                           const channel_epilogue<double>&);

}  // namespace caflow
