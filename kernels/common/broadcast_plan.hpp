#pragma once
// How two shapes broadcast (numpy/TensorFlow rules), worked out once for every device's binary
// element-wise kernels: the CPU's (kernels/cpu/cwise_binary.hpp) and the GPU's
// (kernels/gpu/cwise_binary_kernels.cpp) take the same paths for the same shapes.
#include <array>
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"

namespace caflow::cwise {

struct broadcast_plan {
  enum class kind : uint8_t { flat, lhs_scalar, rhs_scalar, general };
  kind how = kind::flat;
  tensor_shape out_shape;
  // For `general` only: the collapsed dims; x_dims[i] and y_dims[i] are out_dims[i] or 1.
  int rank = 0;
  std::array<int64_t, max_rank> out_dims{}, x_dims{}, y_dims{};
};

// Works out how x and y broadcast; an invalid_argument error names both shapes.
status plan_broadcast(const tensor_shape& x, const tensor_shape& y, broadcast_plan* plan);

}  // namespace caflow::cwise
