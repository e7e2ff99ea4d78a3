#pragma once
// Random tensors: RandomUniform, RandomStandardNormal, TruncatedNormal (stateful ops).
//
//   auto w = ops::truncated_normal(root, {784, 100}, dtype::float32, {.seed = 1, .seed2 = 7});
//
// Seeds (0, 0) give a different sequence every time the graph is built; any other pair gives
// the same sequence of values on every rebuild, advancing with every step.
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct random_attrs {
  int64_t seed = 0;
  int64_t seed2 = 0;
};

// `shape` is a 1-D int32 or int64 tensor of non-negative dims; `type` is float32 or float64.
// Uniform on [0, 1).
output random_uniform(const scope& s, const output& shape, dtype type,
                      const random_attrs& attrs = {});
output random_uniform(const scope& s, const std::vector<int64_t>& shape, dtype type,
                      const random_attrs& attrs = {});
// Normal with mean 0 and standard deviation 1.
output random_standard_normal(const scope& s, const output& shape, dtype type,
                              const random_attrs& attrs = {});
output random_standard_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                              const random_attrs& attrs = {});
// Normal with mean 0 and standard deviation 1, redrawn when more than 2 from the mean.
output truncated_normal(const scope& s, const output& shape, dtype type,
                        const random_attrs& attrs = {});
output truncated_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                        const random_attrs& attrs = {});

}  // namespace caflow::ops
