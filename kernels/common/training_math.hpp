#pragma once
// The optimizers' arithmetic per element, shared by the CPU's fused update loops and the GPU's
// update kernels, so both devices apply the same formula in the same order (and agree to the
// last bit where their sqrt does). Inline and branch-free apart from compile-time-constant
// flags, so a CPU loop over it still vectorizes.
#include <math.h>

#include "kernels/common/host_device.hpp"

namespace caflow::training {

CAFLOW_HOST_DEVICE inline float sqrt_of(float x) { return sqrtf(x); }
CAFLOW_HOST_DEVICE inline double sqrt_of(double x) { return sqrt(x); }

// ApplyMomentum: accum becomes accum * momentum + g; returns var's new value (with Nesterov's
// look-ahead when `nesterov`).
template <class T>
CAFLOW_HOST_DEVICE inline T momentum_update(T var, T g, T lr, T momentum, bool nesterov,
                                            T& accum) {
  const T a = accum * momentum + g;
  accum = a;
  return nesterov ? var - (g * lr + a * momentum * lr) : var - a * lr;
}

// ApplyAdam's per-step constants: the bias corrections of both moments folded into one step
// size, alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t).
template <class T>
struct adam_step {
  T alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon;
};

template <class T>
CAFLOW_HOST_DEVICE inline adam_step<T> make_adam_step(T beta1_power, T beta2_power, T lr, T beta1,
                                                      T beta2, T epsilon) {
  return {lr * sqrt_of(T(1) - beta2_power) / (T(1) - beta1_power), beta1, T(1) - beta1,
          T(1) - beta2, epsilon};
}

// ApplyAdam: m and v become the moments' new values; returns var's new value (with Nesterov's
// look-ahead when `nesterov`).
template <class T>
CAFLOW_HOST_DEVICE inline T adam_update(T var, T g, const adam_step<T>& s, bool nesterov, T& m,
                                        T& v) {
  const T mi = m + (g - m) * s.one_minus_beta1;
  const T vi = v + (g * g - v) * s.one_minus_beta2;
  m = mi;
  v = vi;
  const T direction = nesterov ? mi * s.beta1 + g * s.one_minus_beta1 : mi;
  return var - direction * s.alpha / (sqrt_of(vi) + s.epsilon);
}

}  // namespace caflow::training
