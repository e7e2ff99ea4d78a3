#pragma once
// A reduction (Sum, Mean, Max, Min, Prod) planned once for every device's kernels: adjacent
// dims that are all kept or all reduced are collapsed into runs (size-1 dims dropped), and the
// reduction runs as a few passes, each reducing the middle dim of an [outer, size, inner] view.
#include <array>
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

struct reduction_pass {
  int64_t outer = 1, size = 1, inner = 1;
};

struct reduction_plan {
  tensor_shape output_shape;  // with keep_dims applied
  // Empty when nothing needs reducing: the output is the input, reshaped.
  std::array<reduction_pass, max_rank> passes{};
  int num_passes = 0;
  int64_t reduced_elements = 1;  // inputs that meet in each output; Mean divides by it
};

// Validates the axes against the input and plans the passes.
status_or<reduction_plan> plan_reduction(const tensor_shape& input, const tensor& axes,
                                         bool keep_dims);

}  // namespace caflow
