#pragma once
// Folds one hash value into another (boost's hash_combine mixing, 64-bit constant): for the hash
// of a struct or a sequence, field by field.
#include <cstddef>

namespace caflow {

inline size_t hash_mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace caflow
