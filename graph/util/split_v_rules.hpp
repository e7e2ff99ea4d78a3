#pragma once
// SplitV's size_splits resolved against the split dimension, shared by its shape function
// (graph/ops/split_v_ops.cpp) and kernel (kernels/cpu/split_v_kernel.cpp). Errors carry
// no node name: callers add it.
#include <cstdint>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

// `sizes` has num_split entries, each >= 0 except at most one -1 (the rest of the dimension).
// With `dim` known (>= 0) the -1 is resolved and the sizes must add up to dim; with dim
// unknown (-1) the -1 stays.
status_or<std::vector<int64_t>> resolve_split_sizes(const std::vector<int64_t>& sizes,
                                                    int64_t num_split, int64_t dim);

}  // namespace caflow
