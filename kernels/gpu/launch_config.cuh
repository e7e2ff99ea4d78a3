#pragma once
// Grid sizes and the grid-stride loop shared by the .cu files.
#include <cuda_runtime.h>

#include <cstdint>

namespace caflow::gpu {

inline constexpr int threads_per_block = 256;

// One block per 256 items up to 8192 blocks; the grid-stride loop covers the rest. An H200
// (132 SMs, 2048 resident threads each) holds 1056 such blocks at once, so the cap is about
// eight waves: enough blocks that the last wave's idle SMs cost little, few enough that each
// thread loops a while and its launch cost is spread.
inline unsigned blocks_for(int64_t n) {
  const int64_t b = (n + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

#define CAFLOW_GRID_LOOP(i, n)                                                              \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

}  // namespace caflow::gpu
