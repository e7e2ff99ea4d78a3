#pragma once
// Launchers of the GPU's RandomUniform, RandomStandardNormal and TruncatedNormal (random.cu).
// Each draws exactly the Philox4x32-10 blocks the CPU kernels draw (kernels/cpu/
// random_distributions.hpp): group g of a step reads blocks from first_block + g *
// blocks_per_group, so for the same seeds and step the uniform values are bit-identical to the
// CPU's, and the normal ones equal to float rounding of the device's sqrt, log, sin and cos
// (while the kernel's steps run one after another, as they do on one stream).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace caflow::gpu {

enum class random_kind { uniform, normal, truncated_normal };

// The stream's key (seed) and high counter words (seed2), as random::philox_stream holds them.
struct philox_seeds {
  uint32_t key0 = 0, key1 = 0, seed2_lo = 0, seed2_hi = 0;
};

// Samples per group and blocks per group of a kind and type, as the CPU's distributions.
int random_group_size(random_kind kind, bool is_double);
uint64_t random_blocks_per_group(random_kind kind);

// Reads the first block of the step from *counter (device memory), then adds the blocks it
// used to it: the stream's position lives on the GPU, so a recorded step replayed draws new
// values each time, as a launched one does.
template <class T>
void launch_random(random_kind kind, const philox_seeds& seeds, uint64_t* counter, T* out,
                   int64_t n, cudaStream_t stream);

}  // namespace caflow::gpu
