#pragma once
// Seeded tensors for kernel tests: the same inputs every run, so a failure reproduces.
#include <cstdint>
#include <random>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::testing {

// Values in [-1, 1) from a 64-bit linear congruential generator: cheap enough for the
// reference convolutions' and poolings' big inputs, and identical on every standard library.
template <class T>
tensor random_tensor(const tensor_shape& shape, uint64_t seed) {
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (T& e : v) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    e = static_cast<T>(static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
  return tensor::from_vector<T>(v, shape);
}

// Uniform values in [lo, hi).
template <class T>
tensor random_tensor(const tensor_shape& shape, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  for (T& x : v) x = static_cast<T>(u(gen));
  return tensor::from_vector<T>(v, shape);
}

}  // namespace caflow::testing
