#pragma once
// The launchers of caflow's CUDA kernels: plain functions over raw device pointers that queue
// work on a stream and return at once. The .cu files define them (and the functor tags, which
// stay incomplete here); the op kernels in kernels/gpu/*.cpp validate inputs, allocate outputs
// and call them. Keeping the .cu side free of caflow's headers keeps nvcc fast.
//
// Every launcher REQUIRES n >= 0 (n == 0 queues nothing) and pointers into device memory of
// the GPU current on the calling thread; errors surface from cudaGetLastError afterwards.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace caflow::gpu {

inline constexpr int max_launch_rank = 8;

// A broadcast of x and y into an output of `rank` dims: element strides of x and y per
// output dim, 0 where that input is broadcast.
struct broadcast_strides {
  int rank = 0;
  int64_t out_dims[max_launch_rank] = {};
  int64_t x_strides[max_launch_rank] = {};
  int64_t y_strides[max_launch_rank] = {};
};

enum class operand_layout : uint8_t {
  same,       // x[i] op y[i]
  x_scalar,   // x[0] op y[i]
  y_scalar,   // x[i] op y[0]
  broadcast,  // through broadcast_strides
};

// Binary functors. Arithmetic: Out == T; comparisons: Out == bool.
struct add_f;
struct sub_f;
struct mul_f;
struct div_f;
struct maximum_f;
struct minimum_f;
struct pow_f;
struct equal_f;
struct greater_f;
struct less_f;
// Gradients, in the inputs' order of their ops.
struct relu_grad_f;     // (gradients, features): gradients * (features > 0)
struct sigmoid_grad_f;  // (y, dy): dy * y * (1 - y)
struct tanh_grad_f;     // (y, dy): dy * (1 - y * y)

template <class F, class T, class Out>
void launch_binary(const T* x, const T* y, Out* out, int64_t n, operand_layout layout,
                   const broadcast_strides& strides, cudaStream_t stream);

// Unary functors.
struct neg_f;
struct abs_f;
struct sign_f;
struct square_f;
struct sqrt_f;
struct rsqrt_f;
struct exp_f;
struct log_f;
struct reciprocal_f;
struct floor_f;
struct relu_f;
struct sigmoid_f;
struct tanh_f;

template <class F, class T>
void launch_unary(const T* x, T* out, int64_t n, cudaStream_t stream);

template <class S, class D>
void launch_cast(const S* x, D* out, int64_t n, cudaStream_t stream);

template <class T>
void launch_fill(T* out, int64_t n, T value, cudaStream_t stream);

// out[o, i] = reduce over s of in[o, s, i]. size >= 1. REQUIRES scratch of at least
// reduce_scratch_bytes for the same shape (device memory, untouched by other work until the
// launches are done: memory from the GPU's allocator, released after queuing, is). Returns an
// error from CUB or for a grid too large; launch errors surface from cudaGetLastError.
// Deterministic run to run for a given shape (no atomics; see reduce.cu).
struct sum_r;
struct max_r;
template <class R, class T>
size_t reduce_scratch_bytes(int64_t outer, int64_t size, int64_t inner);
template <class R, class T>
cudaError_t launch_reduce(const T* in, T* out, int64_t outer, int64_t size, int64_t inner,
                          void* scratch, size_t scratch_bytes, cudaStream_t stream);
// out[i] /= divisor (Mean).
template <class T>
void launch_divide(T* out, int64_t n, T divisor, cudaStream_t stream);
// out[o, i] = the first s where in[o, s, i] is largest. size >= 1.
template <class T, class Index>
void launch_arg_max(const T* in, Index* out, int64_t outer, int64_t size, int64_t inner,
                    cudaStream_t stream);

// out[k] = x[k] + bias[(k / inner) % channels].
template <class T>
void launch_bias_add(const T* x, const T* bias, T* out, int64_t n, int64_t channels,
                     int64_t inner, cudaStream_t stream);

// Row-wise softmax (or log-softmax) of a [rows, cols] matrix, cols >= 1.
template <class T>
void launch_softmax(const T* logits, T* out, int64_t rows, int64_t cols, bool log,
                    cudaStream_t stream);
// Per row: loss = -sum_j labels[j] * log_softmax(features)[j], backprop = softmax - labels.
// labels_row_stride is 0 when one label row is broadcast to every row.
template <class T>
void launch_softmax_xent(const T* features, const T* labels, int64_t labels_row_stride, T* loss,
                         T* backprop, int64_t rows, int64_t cols, cudaStream_t stream);
// As above with one class index per row; an index outside [0, cols) gives NaN for the row.
template <class T, class Index>
void launch_sparse_softmax_xent(const T* features, const Index* labels, T* loss, T* backprop,
                                int64_t rows, int64_t cols, cudaStream_t stream);

// Optimizers; hyperparameters are device scalars, read by the kernel.
template <class T>
void launch_apply_gradient_descent(const T* var_in, T* var, const T* alpha, const T* delta,
                                   int64_t n, cudaStream_t stream);
template <class T>
void launch_apply_momentum(const T* var_in, T* var, const T* accum_in, T* accum, const T* lr,
                           const T* grad, const T* momentum, bool nesterov, int64_t n,
                           cudaStream_t stream);
template <class T>
struct adam_scalars {
  const T* beta1_power;
  const T* beta2_power;
  const T* lr;
  const T* beta1;
  const T* beta2;
  const T* epsilon;
};
template <class T>
void launch_apply_adam(const T* var_in, T* var, const T* m_in, T* m, const T* v_in, T* v,
                       const adam_scalars<T>& s, const T* grad, bool nesterov, int64_t n,
                       cudaStream_t stream);

}  // namespace caflow::gpu
