// gemm<int64_t>: its own translation unit, so the four types' contractions compile in parallel.
#include "kernels/cpu/gemm_impl.hpp"

namespace caflow {

template void gemm<int64_t>(const int64_t*, bool, const int64_t*, bool, int64_t*, int64_t,
                            int64_t, int64_t, const Eigen::ThreadPoolDevice*);

}  // namespace caflow
