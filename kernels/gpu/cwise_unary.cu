// Unary element-wise kernels, Cast and Fill.
#include "kernels/common/cast_value.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"
#include "kernels/gpu/vectorized.cuh"

namespace caflow::gpu {

struct neg_f {
  template <class T>
  __device__ T operator()(T a) const { return -a; }
};
struct abs_f {
  template <class T>
  __device__ T operator()(T a) const { return a < T(0) ? -a : a; }
};
struct sign_f {
  template <class T>
  __device__ T operator()(T a) const { return T((a > T(0)) - (a < T(0))); }
};
struct square_f {
  template <class T>
  __device__ T operator()(T a) const { return a * a; }
};
struct sqrt_f {
  __device__ float operator()(float a) const { return sqrtf(a); }
  __device__ double operator()(double a) const { return sqrt(a); }
};
struct rsqrt_f {
  __device__ float operator()(float a) const { return rsqrtf(a); }
  __device__ double operator()(double a) const { return rsqrt(a); }
};
struct exp_f {
  __device__ float operator()(float a) const { return expf(a); }
  __device__ double operator()(double a) const { return exp(a); }
};
struct log_f {
  __device__ float operator()(float a) const { return logf(a); }
  __device__ double operator()(double a) const { return log(a); }
};
struct reciprocal_f {
  template <class T>
  __device__ T operator()(T a) const { return T(1) / a; }
};
struct floor_f {
  __device__ float operator()(float a) const { return floorf(a); }
  __device__ double operator()(double a) const { return floor(a); }
};
struct relu_f {
  template <class T>
  __device__ T operator()(T a) const { return a > T(0) ? a : T(0); }
};
struct sigmoid_f {
  __device__ float operator()(float a) const { return 1.0f / (1.0f + expf(-a)); }
  __device__ double operator()(double a) const { return 1.0 / (1.0 + exp(-a)); }
};
struct tanh_f {
  __device__ float operator()(float a) const { return tanhf(a); }
  __device__ double operator()(double a) const { return tanh(a); }
};

namespace {

template <class F, class T>
__global__ void unary(const T* x, T* out, int64_t n) {
  const F f;
  CAFLOW_GRID_LOOP(i, n) out[i] = f(x[i]);
}

// In packets of N, then the last n % N elements one per thread (see vectorized.cuh).
template <class F, int N, class T>
__global__ void unary_packets(const T* x, T* out, int64_t n) {
  const F f;
  const auto* xp = reinterpret_cast<const packet<T, N>*>(x);
  auto* op = reinterpret_cast<packet<T, N>*>(out);
  const int64_t packets = n / N;
  CAFLOW_GRID_LOOP(p, packets) {
    packet<T, N> a = xp[p];
#pragma unroll
    for (int k = 0; k < N; ++k) a.v[k] = f(a.v[k]);
    op[p] = a;
  }
  const int64_t i = packets * N + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(x[i]);
}

template <class S, class D>
__global__ void cast(const S* x, D* out, int64_t n) {
  CAFLOW_GRID_LOOP(i, n) out[i] = cwise::cast_value<D>(x[i]);
}

template <class T>
__global__ void fill(T* out, int64_t n, T value) {
  CAFLOW_GRID_LOOP(i, n) out[i] = value;
}

}  // namespace

template <class F, class T>
void launch_unary(const T* x, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int N = packet_width<T>;
  if (N > 1 && n >= N && packet_aligned<T, N>(x) && packet_aligned<T, N>(out)) {
    unary_packets<F, N><<<blocks_for(n / N), threads_per_block, 0, stream>>>(x, out, n);
    return;
  }
  unary<F><<<blocks_for(n), threads_per_block, 0, stream>>>(x, out, n);
}

template <class S, class D>
void launch_cast(const S* x, D* out, int64_t n, cudaStream_t stream) {
  if (n > 0) cast<<<blocks_for(n), threads_per_block, 0, stream>>>(x, out, n);
}

template <class T>
void launch_fill(T* out, int64_t n, T value, cudaStream_t stream) {
  if (n > 0) fill<<<blocks_for(n), threads_per_block, 0, stream>>>(out, n, value);
}

#define CAFLOW_UNARY(F, T) template void launch_unary<F, T>(const T*, T*, int64_t, cudaStream_t);
#define CAFLOW_UNARY_FLOATING(F) CAFLOW_UNARY(F, float) CAFLOW_UNARY(F, double)
#define CAFLOW_UNARY_NUMERIC(F) CAFLOW_UNARY_FLOATING(F) CAFLOW_UNARY(F, int32_t) CAFLOW_UNARY(F, int64_t)
CAFLOW_UNARY_NUMERIC(neg_f)
CAFLOW_UNARY_NUMERIC(abs_f)
CAFLOW_UNARY_NUMERIC(sign_f)
CAFLOW_UNARY_NUMERIC(square_f)
CAFLOW_UNARY_FLOATING(sqrt_f)
CAFLOW_UNARY_FLOATING(rsqrt_f)
CAFLOW_UNARY_FLOATING(exp_f)
CAFLOW_UNARY_FLOATING(log_f)
CAFLOW_UNARY_FLOATING(reciprocal_f)
CAFLOW_UNARY_FLOATING(floor_f)
CAFLOW_UNARY_NUMERIC(relu_f)
CAFLOW_UNARY_FLOATING(sigmoid_f)
CAFLOW_UNARY_FLOATING(tanh_f)

#define CAFLOW_CAST(S, D) template void launch_cast<S, D>(const S*, D*, int64_t, cudaStream_t);
#define CAFLOW_CAST_FROM(S)                                                                     \
  CAFLOW_CAST(S, float) CAFLOW_CAST(S, double) CAFLOW_CAST(S, int32_t) CAFLOW_CAST(S, int64_t) \
  CAFLOW_CAST(S, uint8_t) CAFLOW_CAST(S, bool)
CAFLOW_CAST_FROM(float)
CAFLOW_CAST_FROM(double)
CAFLOW_CAST_FROM(int32_t)
CAFLOW_CAST_FROM(int64_t)
CAFLOW_CAST_FROM(uint8_t)
CAFLOW_CAST_FROM(bool)

#define CAFLOW_FILL(T) template void launch_fill<T>(T*, int64_t, T, cudaStream_t);
CAFLOW_FILL(float)
CAFLOW_FILL(double)
CAFLOW_FILL(int32_t)
CAFLOW_FILL(int64_t)
CAFLOW_FILL(uint8_t)
CAFLOW_FILL(bool)

}  // namespace caflow::gpu
