// BiasAdd, Softmax, LogSoftmax and the softmax cross-entropy losses.
//
// Row kernels run one block per row: a block-wide max, then a block-wide sum of exp(x - max),
// each a tree in shared memory, so rows of any width are stable and coalesced.
#include <math_constants.h>

#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {

namespace {

__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return exp(x); }
__device__ inline float log_of(float x) { return logf(x); }
__device__ inline double log_of(double x) { return log(x); }
__device__ inline float nan_of(float) { return CUDART_NAN_F; }
__device__ inline double nan_of(double) { return CUDART_NAN; }

template <class T>
__global__ void bias_add(const T* x, const T* bias, T* out, int64_t n, int64_t channels,
                         int64_t inner) {
  CAFLOW_GRID_LOOP(k, n) out[k] = x[k] + bias[(k / inner) % channels];
}

// Block-wide reduction through `scratch` (threads_per_block entries); every thread gets the
// result.
template <class T, class F>
__device__ T block_reduce(T v, T* scratch, F f) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] = f(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    __syncthreads();
  }
  const T r = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return r;
}

struct max_of {
  template <class T>
  __device__ T operator()(T a, T b) const { return a > b || a != a ? a : b; }
};
struct sum_of {
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};

// The row's max and sum of exp(x - max).
template <class T>
__device__ void row_stats(const T* x, int64_t cols, T* scratch, T* max, T* sum) {
  T m = x[0];
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = max_of()(m, x[j]);
  *max = block_reduce(m, scratch, max_of());
  T s = T(0);
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += exp_of(x[j] - *max);
  *sum = block_reduce(s, scratch, sum_of());
}

template <class T>
__global__ void softmax(const T* logits, T* out, int64_t cols, bool log) {
  __shared__ T scratch[threads_per_block];
  const int64_t r = blockIdx.x;
  const T* x = logits + r * cols;
  T* y = out + r * cols;
  T max, sum;
  row_stats(x, cols, scratch, &max, &sum);
  const T log_sum = log_of(sum), inv_sum = T(1) / sum;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    y[j] = log ? x[j] - max - log_sum : exp_of(x[j] - max) * inv_sum;
}

template <class T>
__global__ void softmax_xent(const T* features, const T* labels, int64_t labels_row_stride,
                             T* loss, T* backprop, int64_t cols) {
  __shared__ T scratch[threads_per_block];
  const int64_t r = blockIdx.x;
  const T* x = features + r * cols;
  const T* l = labels + r * labels_row_stride;
  T* bp = backprop + r * cols;
  T max, sum;
  row_stats(x, cols, scratch, &max, &sum);
  const T log_sum = log_of(sum), inv_sum = T(1) / sum;
  T part = T(0);
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const T s = x[j] - max;
    // A zero label adds nothing, even where log_softmax is -inf (0 * inf would be NaN).
    if (l[j] != T(0)) part += l[j] * (log_sum - s);
    bp[j] = exp_of(s) * inv_sum - l[j];
  }
  const T total = block_reduce(part, scratch, sum_of());
  if (threadIdx.x == 0) loss[r] = total;
}

template <class T, class Index>
__global__ void sparse_softmax_xent(const T* features, const Index* labels, T* loss, T* backprop,
                                    int64_t cols) {
  __shared__ T scratch[threads_per_block];
  const int64_t r = blockIdx.x;
  const T* x = features + r * cols;
  T* bp = backprop + r * cols;
  const int64_t label = static_cast<int64_t>(labels[r]);
  if (label < 0 || label >= cols) {
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) bp[j] = nan_of(T{});
    if (threadIdx.x == 0) loss[r] = nan_of(T{});
    return;
  }
  T max, sum;
  row_stats(x, cols, scratch, &max, &sum);
  const T inv_sum = T(1) / sum;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
    bp[j] = exp_of(x[j] - max) * inv_sum - (j == label ? T(1) : T(0));
  if (threadIdx.x == 0) loss[r] = log_of(sum) - (x[label] - max);
}

template <class T>
__global__ void zero_loss(T* loss, int64_t rows) {
  CAFLOW_GRID_LOOP(r, rows) loss[r] = T(0);
}

}  // namespace

template <class T>
void launch_bias_add(const T* x, const T* bias, T* out, int64_t n, int64_t channels,
                     int64_t inner, cudaStream_t stream) {
  if (n > 0)
    bias_add<<<blocks_for(n), threads_per_block, 0, stream>>>(x, bias, out, n, channels, inner);
}

template <class T>
void launch_softmax(const T* logits, T* out, int64_t rows, int64_t cols, bool log,
                    cudaStream_t stream) {
  if (rows > 0 && cols > 0)
    softmax<<<static_cast<unsigned>(rows), threads_per_block, 0, stream>>>(logits, out, cols, log);
}

template <class T>
void launch_softmax_xent(const T* features, const T* labels, int64_t labels_row_stride, T* loss,
                         T* backprop, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  if (cols == 0) {
    zero_loss<<<blocks_for(rows), threads_per_block, 0, stream>>>(loss, rows);
    return;
  }
  softmax_xent<<<static_cast<unsigned>(rows), threads_per_block, 0, stream>>>(
      features, labels, labels_row_stride, loss, backprop, cols);
}

template <class T, class Index>
void launch_sparse_softmax_xent(const T* features, const Index* labels, T* loss, T* backprop,
                                int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  sparse_softmax_xent<<<static_cast<unsigned>(rows), threads_per_block, 0, stream>>>(
      features, labels, loss, backprop, cols);
}

#define CAFLOW_NN(T)                                                                             \
  template void launch_bias_add<T>(const T*, const T*, T*, int64_t, int64_t, int64_t,           \
                                   cudaStream_t);                                                \
  template void launch_softmax<T>(const T*, T*, int64_t, int64_t, bool, cudaStream_t);          \
  template void launch_softmax_xent<T>(const T*, const T*, int64_t, T*, T*, int64_t, int64_t,   \
                                       cudaStream_t);                                            \
  template void launch_sparse_softmax_xent<T, int32_t>(const T*, const int32_t*, T*, T*, int64_t, \
                                                       int64_t, cudaStream_t);                   \
  template void launch_sparse_softmax_xent<T, int64_t>(const T*, const int64_t*, T*, T*, int64_t, \
                                                       int64_t, cudaStream_t);
CAFLOW_NN(float)
CAFLOW_NN(double)

}  // namespace caflow::gpu
