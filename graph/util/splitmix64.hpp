#pragma once
// splitmix64 (Steele, Lea and Flood): a tiny 64-bit generator whose stream is the same on every
// platform and compiler, unlike std:: distributions; for shuffles and generated data that
// must reproduce exactly from a seed.
#include <cstdint>

namespace caflow {

// The next value of the stream whose state is `state` (advanced).
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace caflow
