// gemm<int32_t>: its own translation unit, so the four types' contractions compile in parallel.
#include "kernels/cpu/gemm_impl.hpp"

namespace caflow {

template void gemm<int32_t>(const int32_t*, bool, const int32_t*, bool, int32_t*, int64_t,
                            int64_t, int64_t, const Eigen::ThreadPoolDevice*);

}  // namespace caflow
