// ArgMax over the middle dim of an [outer, size, inner] view, with the CPU kernel's answer:
// ties keep the first index and the first NaN wins (kernels/cpu/argmax_kernel.cpp).
//
// Rows (inner == 1), the usual case (a class per example), get a warp or a block each and are
// reduced as (value, index) pairs; columns get a thread each, walking down the column, so
// neighbouring threads read neighbouring elements. No atomics: the answer is exact, so it is
// also the same run to run.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <climits>

#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {
namespace {

constexpr int warp = 32;
constexpr int64_t warp_row_limit = 256;

template <class T>
__device__ bool is_nan(T v) {
  return v != v;  // false for integers
}

template <class T>
struct candidate {
  T value;
  int64_t index;  // -1: none yet (a thread that saw no element)
};

// The better of two candidates: a NaN beats every number, a larger value a smaller one, and
// between equals the lower index. This orders candidates totally, so a tree of any shape finds
// what the CPU's left-to-right scan finds.
struct better_of {
  template <class T>
  __device__ candidate<T> operator()(const candidate<T>& a, const candidate<T>& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan != b_nan) return a_nan ? a : b;
    if (!a_nan && a.value != b.value) return a.value > b.value ? a : b;
    return a.index < b.index ? a : b;
  }
};

template <class T>
__device__ candidate<T> scan_strided(const T* row, int64_t begin, int64_t size, int stride) {
  const better_of better;
  candidate<T> best{T{}, -1};
  for (int64_t s = begin; s < size; s += stride) best = better(best, candidate<T>{row[s], s});
  return best;
}

template <class T, class Index>
__global__ void arg_max_short_rows(const T* in, Index* out, int64_t rows, int64_t size) {
  using warp_reduce = cub::WarpReduce<candidate<T>>;
  __shared__ typename warp_reduce::TempStorage temp[threads_per_block / warp];
  const int lane = threadIdx.x % warp, w = threadIdx.x / warp;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (threads_per_block / warp) + w;
  if (row >= rows) return;  // whole warps leave together
  candidate<T> best = scan_strided(in + row * size, lane, size, warp);
  best = warp_reduce(temp[w]).Reduce(best, better_of{});
  if (lane == 0) out[row] = static_cast<Index>(best.index);
}

template <class T, class Index>
__global__ void arg_max_rows(const T* in, Index* out, int64_t size) {
  using block_reduce = cub::BlockReduce<candidate<T>, threads_per_block>;
  __shared__ typename block_reduce::TempStorage temp;
  const int64_t row = blockIdx.x;
  candidate<T> best = scan_strided(in + row * size, threadIdx.x, size, threads_per_block);
  best = block_reduce(temp).Reduce(best, better_of{});
  if (threadIdx.x == 0) out[row] = static_cast<Index>(best.index);
}

template <class T, class Index>
__global__ void arg_max_columns(const T* in, Index* out, int64_t outer, int64_t size,
                                int64_t inner) {
  const better_of better;
  CAFLOW_GRID_LOOP(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* p = in + o * size * inner + i;
    candidate<T> best{p[0], 0};
    for (int64_t s = 1; s < size; ++s) best = better(best, candidate<T>{p[s * inner], s});
    out[k] = static_cast<Index>(best.index);
  }
}

}  // namespace

template <class T, class Index>
void launch_arg_max(const T* in, Index* out, int64_t outer, int64_t size, int64_t inner,
                    cudaStream_t stream) {
  if (outer * inner == 0) return;
  if (inner == 1 && size <= warp_row_limit) {
    const int64_t blocks = (outer + threads_per_block / warp - 1) / (threads_per_block / warp);
    if (blocks <= INT_MAX) {
      arg_max_short_rows<<<static_cast<unsigned>(blocks), threads_per_block, 0, stream>>>(in, out, outer, size);
      return;
    }
  } else if (inner == 1 && outer <= INT_MAX) {
    arg_max_rows<<<static_cast<unsigned>(outer), threads_per_block, 0, stream>>>(in, out, size);
    return;
  }
  arg_max_columns<<<blocks_for(outer * inner), threads_per_block, 0, stream>>>(in, out, outer, size,
                                                                              inner);
}

#define CAFLOW_ARG_MAX(T, I) \
  template void launch_arg_max<T, I>(const T*, I*, int64_t, int64_t, int64_t, cudaStream_t);
#define CAFLOW_ARG_MAX_TO(T) CAFLOW_ARG_MAX(T, int32_t) CAFLOW_ARG_MAX(T, int64_t)
CAFLOW_ARG_MAX_TO(float)
CAFLOW_ARG_MAX_TO(double)
CAFLOW_ARG_MAX_TO(int32_t)
CAFLOW_ARG_MAX_TO(int64_t)

}  // namespace caflow::gpu
