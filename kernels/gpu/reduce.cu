// Reductions over the middle dim of [outer, size, inner] views (Sum, Mean, Max, BiasAddGrad)
// and ArgMax.
#include <math_constants.h>

#include <climits>

#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {

struct sum_r {
  template <class T>
  __device__ static T identity() { return T(0); }
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
__device__ inline float lowest_of(float) { return -CUDART_INF_F; }
__device__ inline double lowest_of(double) { return -CUDART_INF; }
__device__ inline int32_t lowest_of(int32_t) { return INT_MIN; }
__device__ inline int64_t lowest_of(int64_t) { return LLONG_MIN; }

struct max_r {
  template <class T>
  __device__ static T identity() { return lowest_of(T{}); }
  template <class T>
  __device__ T operator()(T a, T b) const { return a > b || a != a ? a : b; }  // NaN wins
};

namespace {

// inner == 1: one block per output, its threads striding over the row, then a tree in
// shared memory.
template <class R, class T>
__global__ void reduce_rows(const T* in, T* out, int64_t size) {
  __shared__ T partial[threads_per_block];
  const R r;
  const T* row = in + static_cast<int64_t>(blockIdx.x) * size;
  T acc = R::template identity<T>();
  for (int64_t s = threadIdx.x; s < size; s += blockDim.x) acc = r(acc, row[s]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] = r(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// inner > 1: one thread per output, walking down its column (neighbouring threads read
// neighbouring elements).
template <class R, class T>
__global__ void reduce_columns(const T* in, T* out, int64_t outer, int64_t size, int64_t inner) {
  const R r;
  CAFLOW_GRID_LOOP(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* p = in + o * size * inner + i;
    T acc = R::template identity<T>();
    for (int64_t s = 0; s < size; ++s) acc = r(acc, p[s * inner]);
    out[k] = acc;
  }
}

template <class T>
__global__ void divide(T* out, int64_t n, T divisor) {
  CAFLOW_GRID_LOOP(i, n) out[i] = out[i] / divisor;
}

template <class T, class Index>
__global__ void arg_max(const T* in, Index* out, int64_t outer, int64_t size, int64_t inner) {
  CAFLOW_GRID_LOOP(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* p = in + o * size * inner + i;
    int64_t best = 0;
    T best_v = p[0];
    for (int64_t s = 1; s < size; ++s) {
      const T v = p[s * inner];
      if (v > best_v) {
        best_v = v;
        best = s;
      }
    }
    out[k] = static_cast<Index>(best);
  }
}

}  // namespace

template <class R, class T>
void launch_reduce(const T* in, T* out, int64_t outer, int64_t size, int64_t inner,
                   cudaStream_t stream) {
  if (outer * inner == 0) return;
  if (inner == 1 && outer <= INT_MAX) {
    reduce_rows<R><<<static_cast<unsigned>(outer), threads_per_block, 0, stream>>>(in, out, size);
  } else {
    reduce_columns<R><<<blocks_for(outer * inner), threads_per_block, 0, stream>>>(in, out, outer,
                                                                                  size, inner);
  }
}

template <class T>
void launch_divide(T* out, int64_t n, T divisor, cudaStream_t stream) {
  if (n > 0) divide<<<blocks_for(n), threads_per_block, 0, stream>>>(out, n, divisor);
}

template <class T, class Index>
void launch_arg_max(const T* in, Index* out, int64_t outer, int64_t size, int64_t inner,
                    cudaStream_t stream) {
  if (outer * inner > 0)
    arg_max<<<blocks_for(outer * inner), threads_per_block, 0, stream>>>(in, out, outer, size, inner);
}

#define CAFLOW_REDUCE(R, T) \
  template void launch_reduce<R, T>(const T*, T*, int64_t, int64_t, int64_t, cudaStream_t);
#define CAFLOW_REDUCERS(T) CAFLOW_REDUCE(sum_r, T) CAFLOW_REDUCE(max_r, T) \
  template void launch_divide<T>(T*, int64_t, T, cudaStream_t);
CAFLOW_REDUCERS(float)
CAFLOW_REDUCERS(double)
CAFLOW_REDUCERS(int32_t)
CAFLOW_REDUCERS(int64_t)

#define CAFLOW_ARG_MAX(T, I) \
  template void launch_arg_max<T, I>(const T*, I*, int64_t, int64_t, int64_t, cudaStream_t);
#define CAFLOW_ARG_MAX_TO(T) CAFLOW_ARG_MAX(T, int32_t) CAFLOW_ARG_MAX(T, int64_t)
CAFLOW_ARG_MAX_TO(float)
CAFLOW_ARG_MAX_TO(double)
CAFLOW_ARG_MAX_TO(int32_t)
CAFLOW_ARG_MAX_TO(int64_t)

}  // namespace caflow::gpu
