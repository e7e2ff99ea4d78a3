// gemm<double>: its own translation unit, so the four types' contractions compile in parallel.
#include "kernels/cpu/gemm_impl.hpp"

namespace caflow {

template void gemm<double>(const double*, bool, const double*, bool, double*, int64_t, int64_t,
                          int64_t, const Eigen::ThreadPoolDevice*);

}  // namespace caflow
