#pragma once
// BroadcastGradientArgs as a contract: one home for its shape function
// (graph/ops/nn_ops.cpp) and its kernels.
#include <cstdint>
#include <span>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

// What BroadcastGradientArgs computes, shared by its shape function (for constant shapes) and
// its kernel: for shapes s0 and s1, the dims of their broadcast shape (ascending) over which
// a gradient must be summed to get back to s0 (r0) and to s1 (r1). A dim counts for an input
// when that input is 1 there (or lacks it) while the other is not, and for both when both are
// 1. Errors name both shapes when they do not broadcast.
struct broadcast_reduction {
  std::vector<int64_t> r0, r1;
};
status_or<broadcast_reduction> broadcast_gradient_reduction(std::span<const int64_t> s0,
                                                            std::span<const int64_t> s1);

}  // namespace caflow
