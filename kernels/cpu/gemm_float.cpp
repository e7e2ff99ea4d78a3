// gemm<float>: its own translation unit, so the four types' contractions compile in parallel.
#include "kernels/cpu/gemm_impl.hpp"

namespace caflow {

template void gemm<float>(const float*, bool, const float*, bool, float*, int64_t, int64_t,
                          int64_t, const Eigen::ThreadPoolDevice*);

}  // namespace caflow
