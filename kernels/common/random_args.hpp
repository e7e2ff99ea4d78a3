#pragma once
// What every device's random kernels (RandomUniform, RandomStandardNormal, TruncatedNormal)
// read the same way: the output shape from the `shape` input, and the Philox stream's seeds.
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// The `shape` input (an int32 or int64 vector of non-negative dims) as a shape; errors say
// what is wrong with it.
status random_output_shape(const tensor& shape, tensor_shape* out);

// The stream's (seed, seed2): the attrs, or when both are 0 ("nondeterministic", as in
// TensorFlow) a pair drawn once from the system's entropy.
struct random_seeds {
  uint64_t seed = 0, seed2 = 0;
};
random_seeds resolve_random_seeds(int64_t seed, int64_t seed2);

}  // namespace caflow
