#pragma once
// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3" (SC 2011). Block i of a stream is a pure function of
// (key, counter i): any range of the stream can be produced by any thread in any order, so a
// kernel's whole generator state is one 64-bit block index, and filling in parallel gives the
// same numbers for every thread count.
#include <array>
#include <cstdint>

namespace caflow::random {

using philox_block = std::array<uint32_t, 4>;
using philox_key = std::array<uint32_t, 2>;

// Ten rounds of the Philox S-box with the published multipliers and Weyl key increments.
inline philox_block philox4x32_10(philox_block ctr, philox_key key) {
  constexpr uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += w0;
      key[1] += w1;
    }
    const uint64_t p0 = uint64_t{m0} * ctr[0];
    const uint64_t p1 = uint64_t{m1} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
  }
  return ctr;
}

// One stream per (seed, seed2): the key is `seed`, the high counter words are `seed2`, and
// the low counter words are the block index, so distinct seed pairs never share a block.
class philox_stream {
 public:
  philox_stream() = default;
  philox_stream(uint64_t seed, uint64_t seed2)
      : key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
        seed2_lo_(static_cast<uint32_t>(seed2)),
        seed2_hi_(static_cast<uint32_t>(seed2 >> 32)) {}

  philox_block block(uint64_t index) const {
    return philox4x32_10(
        {static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), seed2_lo_, seed2_hi_},
        key_);
  }

 private:
  philox_key key_{};
  uint32_t seed2_lo_ = 0, seed2_hi_ = 0;
};

// Raw bits to uniform reals. The top 24 (float) or 53 (double) bits become the mantissa, so
// every representable multiple of 2^-24 (2^-53) is equally likely.

// [0, 1)
inline float uniform_float(uint32_t x) { return static_cast<float>(x >> 8) * 0x1p-24f; }
inline double uniform_double(uint32_t lo, uint32_t hi) {
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1p-53;
}

// (0, 1]: for logarithms, which must never see 0.
inline float uniform_float_open0(uint32_t x) { return static_cast<float>((x >> 8) + 1) * 0x1p-24f; }
inline double uniform_double_open0(uint32_t lo, uint32_t hi) {
  return static_cast<double>((((uint64_t{hi} << 32) | lo) >> 11) + 1) * 0x1p-53;
}

}  // namespace caflow::random
