// Binary element-wise kernels with broadcasting, and the activation gradients.
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"
#include "kernels/gpu/vectorized.cuh"

namespace caflow::gpu {

struct add_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct sub_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a - b; }
};
struct mul_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a * b; }
};
struct div_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a / b; }
};
struct maximum_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct minimum_f {
  template <class T>
  __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};
struct pow_f {
  __device__ float operator()(float a, float b) const { return powf(a, b); }
  __device__ double operator()(double a, double b) const { return pow(a, b); }
};
struct equal_f {
  template <class T>
  __device__ bool operator()(T a, T b) const { return a == b; }
};
struct greater_f {
  template <class T>
  __device__ bool operator()(T a, T b) const { return a > b; }
};
struct less_f {
  template <class T>
  __device__ bool operator()(T a, T b) const { return a < b; }
};
struct relu_grad_f {
  template <class T>
  __device__ T operator()(T gradients, T features) const { return features > T(0) ? gradients : T(0); }
};
struct sigmoid_grad_f {
  template <class T>
  __device__ T operator()(T y, T dy) const { return dy * y * (T(1) - y); }
};
struct tanh_grad_f {
  template <class T>
  __device__ T operator()(T y, T dy) const { return dy * (T(1) - y * y); }
};

namespace {

template <class F, class T, class Out>
__global__ void binary_same(const T* x, const T* y, Out* out, int64_t n) {
  const F f;
  CAFLOW_GRID_LOOP(i, n) out[i] = f(x[i], y[i]);
}

template <class F, class T, class Out>
__global__ void binary_x_scalar(const T* x, const T* y, Out* out, int64_t n) {
  const F f;
  const T a = *x;
  CAFLOW_GRID_LOOP(i, n) out[i] = f(a, y[i]);
}

template <class F, class T, class Out>
__global__ void binary_y_scalar(const T* x, const T* y, Out* out, int64_t n) {
  const F f;
  const T b = *y;
  CAFLOW_GRID_LOOP(i, n) out[i] = f(x[i], b);
}

// The same, x_scalar and y_scalar layouts in packets of N: every thread reads whole packets of
// the array operands, then the last n % N outputs are done one per thread.
template <class F, operand_layout L, int N, class T, class Out>
__global__ void binary_packets(const T* x, const T* y, Out* out, int64_t n) {
  const F f;
  constexpr bool x_scalar = L == operand_layout::x_scalar, y_scalar = L == operand_layout::y_scalar;
  const T a0 = x_scalar ? *x : T{}, b0 = y_scalar ? *y : T{};
  const auto* xp = reinterpret_cast<const packet<T, N>*>(x);
  const auto* yp = reinterpret_cast<const packet<T, N>*>(y);
  auto* op = reinterpret_cast<packet<Out, N>*>(out);
  const int64_t packets = n / N;
  CAFLOW_GRID_LOOP(p, packets) {
    packet<T, N> a, b;
    if constexpr (!x_scalar) a = xp[p];
    if constexpr (!y_scalar) b = yp[p];
    packet<Out, N> r;
#pragma unroll
    for (int k = 0; k < N; ++k) r.v[k] = f(x_scalar ? a0 : a.v[k], y_scalar ? b0 : b.v[k]);
    op[p] = r;
  }
  const int64_t i = packets * N + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(x_scalar ? a0 : x[i], y_scalar ? b0 : y[i]);
}

template <class F, int N, class T, class Out>
bool try_binary_packets(const T* x, const T* y, Out* out, int64_t n, operand_layout layout,
                        cudaStream_t stream) {
  if (N == 1 || n < N || !packet_aligned<Out, N>(out)) return false;
  if (layout != operand_layout::x_scalar && !packet_aligned<T, N>(x)) return false;
  if (layout != operand_layout::y_scalar && !packet_aligned<T, N>(y)) return false;
  // Enough threads for the tail too (at most N - 1 elements, fewer than a block).
  const unsigned blocks = blocks_for(n / N);
  switch (layout) {
    case operand_layout::same:
      binary_packets<F, operand_layout::same, N><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return true;
    case operand_layout::x_scalar:
      binary_packets<F, operand_layout::x_scalar, N><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return true;
    case operand_layout::y_scalar:
      binary_packets<F, operand_layout::y_scalar, N><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return true;
    case operand_layout::broadcast:
      return false;
  }
  return false;
}

template <class F, class T, class Out>
__global__ void binary_broadcast(const T* x, const T* y, Out* out, int64_t n, broadcast_strides s) {
  const F f;
  CAFLOW_GRID_LOOP(i, n) {
    int64_t rest = i, xo = 0, yo = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      const int64_t k = rest % s.out_dims[d];
      rest /= s.out_dims[d];
      xo += k * s.x_strides[d];
      yo += k * s.y_strides[d];
    }
    out[i] = f(x[xo], y[yo]);
  }
}

}  // namespace

template <class F, class T, class Out>
void launch_binary(const T* x, const T* y, Out* out, int64_t n, operand_layout layout,
                   const broadcast_strides& strides, cudaStream_t stream) {
  if (n == 0) return;
  // Packets as wide as the inputs allow (16 bytes of T); the outputs of comparisons (bool)
  // are then narrower packets of as many values.
  if (try_binary_packets<F, packet_width<T>>(x, y, out, n, layout, stream)) return;
  const unsigned blocks = blocks_for(n);
  switch (layout) {
    case operand_layout::same:
      binary_same<F><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return;
    case operand_layout::x_scalar:
      binary_x_scalar<F><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return;
    case operand_layout::y_scalar:
      binary_y_scalar<F><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n);
      return;
    case operand_layout::broadcast:
      binary_broadcast<F><<<blocks, threads_per_block, 0, stream>>>(x, y, out, n, strides);
      return;
  }
}

#define CAFLOW_BINARY(F, T, Out)                                                          \
  template void launch_binary<F, T, Out>(const T*, const T*, Out*, int64_t, operand_layout, \
                                         const broadcast_strides&, cudaStream_t);
#define CAFLOW_BINARY_NUMERIC(F)  \
  CAFLOW_BINARY(F, float, float)  \
  CAFLOW_BINARY(F, double, double) \
  CAFLOW_BINARY(F, int32_t, int32_t) \
  CAFLOW_BINARY(F, int64_t, int64_t)
#define CAFLOW_BINARY_FLOATING(F) \
  CAFLOW_BINARY(F, float, float)  \
  CAFLOW_BINARY(F, double, double)
#define CAFLOW_COMPARE(F)            \
  CAFLOW_BINARY(F, float, bool)      \
  CAFLOW_BINARY(F, double, bool)     \
  CAFLOW_BINARY(F, int32_t, bool)    \
  CAFLOW_BINARY(F, int64_t, bool)    \
  CAFLOW_BINARY(F, uint8_t, bool)

CAFLOW_BINARY_NUMERIC(add_f)
CAFLOW_BINARY_NUMERIC(sub_f)
CAFLOW_BINARY_NUMERIC(mul_f)
CAFLOW_BINARY_FLOATING(div_f)
CAFLOW_BINARY_NUMERIC(maximum_f)
CAFLOW_BINARY_NUMERIC(minimum_f)
CAFLOW_BINARY_FLOATING(pow_f)
CAFLOW_COMPARE(equal_f)
CAFLOW_BINARY(equal_f, bool, bool)
CAFLOW_COMPARE(greater_f)
CAFLOW_COMPARE(less_f)
CAFLOW_BINARY_NUMERIC(relu_grad_f)
CAFLOW_BINARY_FLOATING(sigmoid_grad_f)
CAFLOW_BINARY_FLOATING(tanh_grad_f)

}  // namespace caflow::gpu
