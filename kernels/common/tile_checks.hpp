#pragma once
// Tile's `multiples` checked against its input as every device's kernel checks them: one
// non-negative entry per input dimension, and output dims that fit in int64.
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

struct tile_shape {
  std::vector<int64_t> multiples;
  tensor_shape output;
};

// `multiples` in host memory. Errors quote the input shape and the multiples.
status_or<tile_shape> tile_output_shape(const tensor_shape& input, const tensor& multiples);

}  // namespace caflow
