// Binary element-wise kernels with broadcasting, and the activation gradients.
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

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
