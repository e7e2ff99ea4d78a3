// gemm_epilogue<float>: its own translation unit, like gemm<float>.
#include "kernels/cpu/gemm_epilogue_impl.hpp"

namespace caflow {

template void gemm_epilogue<float>(const float*, bool, const float*, bool, float*, int64_t, int64_t,
                                   int64_t, const Eigen::ThreadPoolDevice*,
                                   const channel_epilogue<float>&);

}  // namespace caflow
