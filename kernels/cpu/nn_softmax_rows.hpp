#pragma once
// Row-wise pieces shared by the Softmax, LogSoftmax and cross-entropy kernels: each row of
// `n` logits is shifted by its maximum (so exp never overflows) and exponentiated in one
// vectorized pass that also gives the sum.
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

namespace caflow::softmax_rows {

// Below this shift exp() is denormal or zero. Eigen's vectorized exp returns a denormal
// (~1e-39 for float) even for -inf, while the scalar tail returns 0; the kernels write an
// exact 0 for such entries so masked logits (-inf) always get probability 0.
template <class T>
inline constexpr T exp_underflow =
    std::is_same_v<T, float> ? T(-87.33654f) : T(-708.3964185322641);

template <class T>
using row_map = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// REQUIRES n > 0.
template <class T>
T row_max(const T* x, int64_t n) {
  return row_map<T>(x, n).maxCoeff();
}

// e[j] = exp(x[j] - max) for j < n; returns their sum. `e` may not alias `x`.
template <class T>
T exp_shifted(const T* x, T max, int64_t n, T* e) {
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> out(e, n);
  out = (row_map<T>(x, n) - max).exp();
  return out.sum();
}

// The probability of entry j from its exponential, with exact zeros for underflowing shifts.
template <class T>
T probability(T shifted, T exp_shifted, T inv_sum) {
  return shifted < exp_underflow<T> ? T(0) : exp_shifted * inv_sum;
}

}  // namespace caflow::softmax_rows
