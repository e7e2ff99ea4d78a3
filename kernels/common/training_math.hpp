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
CAFLOW_HOST_DEVICE inline float pow_of(float x, float y) { return powf(x, y); }
CAFLOW_HOST_DEVICE inline double pow_of(double x, double y) { return pow(x, y); }
CAFLOW_HOST_DEVICE inline float abs_of(float x) { return fabsf(x); }
CAFLOW_HOST_DEVICE inline double abs_of(double x) { return fabs(x); }

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

// RMSProp without centering: ms and mom are updated; returns var's new value.
template <class T>
CAFLOW_HOST_DEVICE inline T rms_prop_update(T var, T g, T lr, T rho, T momentum, T epsilon, T& ms,
                                            T& mom) {
  ms += (g * g - ms) * (T(1) - rho);
  mom = mom * momentum + lr * g / sqrt_of(ms + epsilon);
  return var - mom;
}

// Adagrad: with `update_slots` accum grows by g^2 first; returns var's new value.
template <class T>
CAFLOW_HOST_DEVICE inline T adagrad_update(T var, T g, T lr, bool update_slots, T& accum) {
  if (update_slots) accum = accum + g * g;
  return var - lr * g / sqrt_of(accum);
}

// FTRL-Proximal: accum and linear are updated; returns var's new value. As TF, the formulas
// divide by lr and assume non-negative regularization strengths (the kernels check).
template <class T>
CAFLOW_HOST_DEVICE inline T ftrl_update(T var, T g, T lr, T l1, T l2, T lr_power, T& accum,
                                        T& linear) {
  const T new_accum = accum + g * g;
  // accum^-lr_power; lr_power = -0.5 (the usual choice) is a square root.
  const T new_power = lr_power == T(-0.5) ? sqrt_of(new_accum) : pow_of(new_accum, -lr_power);
  const T old_power = lr_power == T(-0.5) ? sqrt_of(accum) : pow_of(accum, -lr_power);
  linear += g - (new_power - old_power) / lr * var;
  accum = new_accum;
  const T quadratic = new_power / lr + T(2) * l2;
  if (abs_of(linear) <= l1) return T(0);
  return ((linear > T(0) ? l1 : -l1) - linear) / quadratic;
}

}  // namespace caflow::training
