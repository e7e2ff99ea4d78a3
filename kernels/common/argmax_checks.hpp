#pragma once
// ArgMax's and ArgMin's inputs checked and their scan laid out once for every device: a
// kernel that gets an arg_reduction may scan the middle dim of the input viewed as
// [outer, size, inner] and write indices of its output type without overflow.
#include <cstdint>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/types.hpp"

namespace caflow {

// The input has at least one dim and `dimension` is a scalar: checked before a kernel reads
// the dimension's value (on a GPU, a copy to the host).
status check_arg_reduction_inputs(const tensor_shape& input, const tensor_shape& dimension);

struct arg_reduction {
  int axis = 0;  // the reduced dim, in [0, rank)
  int64_t outer = 1, size = 1, inner = 1;
  tensor_shape output_shape;  // the input's without `axis`
};

// REQUIRES check_arg_reduction_inputs passed. Checks that `dimension` names a dim of the input
// (negative counts from the end), that dim is not empty, and its last index fits
// `output_type` (int32 or int64).
status_or<arg_reduction> plan_arg_reduction(const tensor_shape& input, int64_t dimension,
                                            dtype output_type);

}  // namespace caflow
