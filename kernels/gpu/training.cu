// The optimizers' fused updates. Hyperparameters stay on the device (read by every thread
// from one cached address), so an update never waits for the host.
#include "kernels/common/training_math.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {

namespace {

template <class T>
__global__ void gradient_descent(const T* var_in, T* var, const T* alpha_p, const T* delta,
                                 int64_t n) {
  const T alpha = *alpha_p;
  CAFLOW_GRID_LOOP(i, n) var[i] = var_in[i] - alpha * delta[i];
}

template <class T>
__global__ void momentum(const T* var_in, T* var, const T* accum_in, T* accum, const T* lr_p,
                         const T* grad, const T* momentum_p, bool nesterov, int64_t n) {
  const T lr = *lr_p, mom = *momentum_p;
  CAFLOW_GRID_LOOP(i, n) {
    T a = accum_in[i];
    var[i] = training::momentum_update(var_in[i], grad[i], lr, mom, nesterov, a);
    accum[i] = a;
  }
}

template <class T>
__global__ void adam(const T* var_in, T* var, const T* m_in, T* m, const T* v_in, T* v,
                     adam_scalars<T> s, const T* grad, bool nesterov, int64_t n) {
  const training::adam_step<T> step = training::make_adam_step(
      *s.beta1_power, *s.beta2_power, *s.lr, *s.beta1, *s.beta2, *s.epsilon);
  CAFLOW_GRID_LOOP(i, n) {
    T mi = m_in[i], vi = v_in[i];
    var[i] = training::adam_update(var_in[i], grad[i], step, nesterov, mi, vi);
    m[i] = mi;
    v[i] = vi;
  }
}

}  // namespace

template <class T>
void launch_apply_gradient_descent(const T* var_in, T* var, const T* alpha, const T* delta,
                                   int64_t n, cudaStream_t stream) {
  if (n > 0)
    gradient_descent<<<blocks_for(n), threads_per_block, 0, stream>>>(var_in, var, alpha, delta, n);
}

template <class T>
void launch_apply_momentum(const T* var_in, T* var, const T* accum_in, T* accum, const T* lr,
                           const T* grad, const T* mom, bool nesterov, int64_t n,
                           cudaStream_t stream) {
  if (n > 0)
    momentum<<<blocks_for(n), threads_per_block, 0, stream>>>(var_in, var, accum_in, accum, lr, grad,
                                                              mom, nesterov, n);
}

template <class T>
void launch_apply_adam(const T* var_in, T* var, const T* m_in, T* m, const T* v_in, T* v,
                       const adam_scalars<T>& s, const T* grad, bool nesterov, int64_t n,
                       cudaStream_t stream) {
  if (n > 0)
    adam<<<blocks_for(n), threads_per_block, 0, stream>>>(var_in, var, m_in, m, v_in, v, s, grad,
                                                          nesterov, n);
}

#define CAFLOW_TRAINING(T)                                                                      \
  template void launch_apply_gradient_descent<T>(const T*, T*, const T*, const T*, int64_t,    \
                                                 cudaStream_t);                                 \
  template void launch_apply_momentum<T>(const T*, T*, const T*, T*, const T*, const T*,       \
                                         const T*, bool, int64_t, cudaStream_t);                \
  template void launch_apply_adam<T>(const T*, T*, const T*, T*, const T*, T*,                 \
                                     const adam_scalars<T>&, const T*, bool, int64_t, cudaStream_t);
CAFLOW_TRAINING(float)
CAFLOW_TRAINING(double)

}  // namespace caflow::gpu
