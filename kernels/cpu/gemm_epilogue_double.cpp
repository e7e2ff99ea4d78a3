// gemm_epilogue<double>: its own translation unit, like gemm<double>.
#include "kernels/cpu/gemm_epilogue_impl.hpp"

namespace caflow {

template void gemm_epilogue<double>(const double*, bool, const double*, bool, double*, int64_t,
                                    int64_t, int64_t, const Eigen::ThreadPoolDevice*,
                                    const channel_epilogue<double>&);

}  // namespace caflow
