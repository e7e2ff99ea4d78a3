#pragma once
// The sampling rules of the random ops. A distribution turns a fixed run of Philox blocks into
// a fixed-size group of samples: group g of a step reads blocks from first + g *
// blocks_per_group on. Because each output position maps to fixed counters, the values do not
// depend on how the output is split among threads.
#include <cmath>
#include <numbers>

#include "kernels/cpu/random_philox.hpp"

namespace caflow::random {

// Box-Muller: u1 in (0,1] and u2 in [0,1) give two independent standard normal samples.
template <class T>
inline void box_muller(T u1, T u2, T* z) {
  const T r = std::sqrt(T(-2) * std::log(u1));
  const T theta = T(2) * std::numbers::pi_v<T> * u2;
  z[0] = r * std::cos(theta);
  z[1] = r * std::sin(theta);
}

// Uniform on [0, 1).
template <class T>
struct uniform_dist;

template <>
struct uniform_dist<float> {
  static constexpr int group_size = 4;
  static constexpr uint64_t blocks_per_group = 1;
  static constexpr double cycles_per_group = 60;
  static void sample(const philox_stream& s, uint64_t block, float* out) {
    const philox_block b = s.block(block);
    for (int i = 0; i < 4; ++i) out[i] = uniform_float(b[i]);
  }
};

template <>
struct uniform_dist<double> {
  static constexpr int group_size = 2;
  static constexpr uint64_t blocks_per_group = 1;
  static constexpr double cycles_per_group = 60;
  static void sample(const philox_stream& s, uint64_t block, double* out) {
    const philox_block b = s.block(block);
    out[0] = uniform_double(b[0], b[1]);
    out[1] = uniform_double(b[2], b[3]);
  }
};

// Standard normal.
template <class T>
struct normal_dist;

template <>
struct normal_dist<float> {
  static constexpr int group_size = 4;
  static constexpr uint64_t blocks_per_group = 1;
  static constexpr double cycles_per_group = 250;
  static void sample(const philox_stream& s, uint64_t block, float* out) {
    const philox_block b = s.block(block);
    box_muller(uniform_float_open0(b[0]), uniform_float(b[1]), out);
    box_muller(uniform_float_open0(b[2]), uniform_float(b[3]), out + 2);
  }
};

template <>
struct normal_dist<double> {
  static constexpr int group_size = 2;
  static constexpr uint64_t blocks_per_group = 1;
  static constexpr double cycles_per_group = 150;
  static void sample(const philox_stream& s, uint64_t block, double* out) {
    const philox_block b = s.block(block);
    box_muller(uniform_double_open0(b[0], b[1]), uniform_double(b[2], b[3]), out);
  }
};

// Standard normal conditioned on |x| < 2, by rejection.
template <class T>
struct truncated_normal_dist {
  using normal = normal_dist<T>;
  static constexpr int group_size = normal::group_size;
  // Rejection consumes a variable number of blocks, so each group owns a fixed range of them.
  // A group needs more than 16 blocks only when nearly all of its 32 (double) or 64 (float)
  // draws fall beyond 2 sigma (probability below 1e-40); it then reads on into the next
  // group's range, which keeps the output a deterministic function of the seeds.
  static constexpr uint64_t blocks_per_group = 16;
  static constexpr double cycles_per_group = normal::cycles_per_group * 1.1;
  static void sample(const philox_stream& s, uint64_t block, T* out) {
    T z[group_size];
    int filled = 0;
    while (filled < group_size) {
      normal::sample(s, block++, z);
      for (int i = 0; i < group_size && filled < group_size; ++i)
        if (std::abs(z[i]) < T(2)) out[filled++] = z[i];
    }
  }
};

}  // namespace caflow::random
