// Random values on the GPU, drawn as the CPU kernels draw them (random_launch.hpp): one thread
// per group of samples, each group from its own fixed Philox blocks.
#include "kernels/gpu/launch_config.cuh"
#include "kernels/gpu/random_launch.hpp"

namespace caflow::gpu {
namespace {

struct block4 {
  uint32_t v[4];
};

// Philox4x32-10 as kernels/cpu/random_philox.hpp computes it (tests/kernels/gpu/random_test.cpp checks
// that the two agree bit for bit).
__device__ block4 philox(uint64_t index, const philox_seeds& s) {
  uint32_t c0 = static_cast<uint32_t>(index), c1 = static_cast<uint32_t>(index >> 32);
  uint32_t c2 = s.seed2_lo, c3 = s.seed2_hi;
  uint32_t k0 = s.key0, k1 = s.key1;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * c0;
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n1 = static_cast<uint32_t>(p1);
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1, n3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return {{c0, c1, c2, c3}};
}

__device__ float uniform(uint32_t x, float) { return static_cast<float>(x >> 8) * 0x1p-24f; }
__device__ double uniform2(uint32_t lo, uint32_t hi) {
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1p-53;
}
__device__ float open0(uint32_t x) { return static_cast<float>((x >> 8) + 1) * 0x1p-24f; }
__device__ double open0_2(uint32_t lo, uint32_t hi) {
  return static_cast<double>((((uint64_t{hi} << 32) | lo) >> 11) + 1) * 0x1p-53;
}

__device__ void box_muller(float u1, float u2, float* z) {
  const float r = sqrtf(-2.0f * logf(u1));
  const float theta = 2.0f * 3.14159265358979323846f * u2;
  z[0] = r * cosf(theta);
  z[1] = r * sinf(theta);
}
__device__ void box_muller(double u1, double u2, double* z) {
  const double r = sqrt(-2.0 * log(u1));
  const double theta = 2.0 * 3.14159265358979323846 * u2;
  z[0] = r * cos(theta);
  z[1] = r * sin(theta);
}

// One group of samples (4 floats or 2 doubles) from block `b`, as the CPU's distributions.
__device__ int uniform_group(const philox_seeds& s, uint64_t b, float* out) {
  const block4 x = philox(b, s);
  for (int i = 0; i < 4; ++i) out[i] = uniform(x.v[i], 0.0f);
  return 4;
}
__device__ int uniform_group(const philox_seeds& s, uint64_t b, double* out) {
  const block4 x = philox(b, s);
  out[0] = uniform2(x.v[0], x.v[1]);
  out[1] = uniform2(x.v[2], x.v[3]);
  return 2;
}
__device__ int normal_group(const philox_seeds& s, uint64_t b, float* out) {
  const block4 x = philox(b, s);
  box_muller(open0(x.v[0]), uniform(x.v[1], 0.0f), out);
  box_muller(open0(x.v[2]), uniform(x.v[3], 0.0f), out + 2);
  return 4;
}
__device__ int normal_group(const philox_seeds& s, uint64_t b, double* out) {
  const block4 x = philox(b, s);
  box_muller(open0_2(x.v[0], x.v[1]), uniform2(x.v[2], x.v[3]), out);
  return 2;
}

template <class T>
__global__ void random_kernel(random_kind kind, philox_seeds seeds, const uint64_t* counter, T* out,
                              int64_t n, int group, uint64_t blocks_per_group) {
  const int64_t groups = (n + group - 1) / group;
  const uint64_t first_block = *counter;
  CAFLOW_GRID_LOOP(g, groups) {
    uint64_t block = first_block + static_cast<uint64_t>(g) * blocks_per_group;
    T got[4];
    if (kind == random_kind::uniform) {
      uniform_group(seeds, block, got);
    } else if (kind == random_kind::normal) {
      normal_group(seeds, block, got);
    } else {
      // Rejection beyond two standard deviations, reading on from the group's own blocks.
      int filled = 0;
      while (filled < group) {
        T z[4];
        normal_group(seeds, block++, z);
        for (int i = 0; i < group && filled < group; ++i)
          if (fabs(static_cast<double>(z[i])) < 2.0) got[filled++] = z[i];
      }
    }
    const int64_t offset = g * group;
    for (int i = 0; i < group && offset + i < n; ++i) out[offset + i] = got[i];
  }
}

__global__ void advance(uint64_t* counter, uint64_t by) { *counter += by; }

}  // namespace

int random_group_size(random_kind, bool is_double) { return is_double ? 2 : 4; }
uint64_t random_blocks_per_group(random_kind kind) {
  return kind == random_kind::truncated_normal ? 16 : 1;
}

template <class T>
void launch_random(random_kind kind, const philox_seeds& seeds, uint64_t* counter, T* out,
                   int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const int group = random_group_size(kind, sizeof(T) == 8);
  const int64_t groups = (n + group - 1) / group;
  random_kernel<T><<<blocks_for(groups), threads_per_block, 0, stream>>>(
      kind, seeds, counter, out, n, group, random_blocks_per_group(kind));
  advance<<<1, 1, 0, stream>>>(counter,
                               static_cast<uint64_t>(groups) * random_blocks_per_group(kind));
}

template void launch_random<float>(random_kind, const philox_seeds&, uint64_t*, float*, int64_t,
                                   cudaStream_t);
template void launch_random<double>(random_kind, const philox_seeds&, uint64_t*, double*, int64_t,
                                    cudaStream_t);

}  // namespace caflow::gpu
