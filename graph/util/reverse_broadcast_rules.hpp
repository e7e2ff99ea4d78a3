#pragma once
// The rules of ReverseV2's axes and BroadcastTo's target shape, shared by their shape functions
// (graph/ops/reverse_ops.cpp) and kernels (kernels/cpu/reverse_broadcast_kernels.cpp).
// Errors carry no node name: callers add it.
#include <array>
#include <cstdint>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"

namespace caflow {

// Which of `rank` dimensions ReverseV2 reverses: each axis in [-rank, rank), none twice.
status_or<std::array<bool, max_rank>> reverse_dims(const std::vector<int64_t>& axis, int rank);

// Checks that `input` (dims -1 when unknown) broadcasts to `target` (REQUIRES: known, at
// least rank 0): target has at least input's rank and each of input's dims, aligned at the
// end, is 1, unknown or the target's.
status check_broadcast_to(const partial_shape& input, const std::vector<int64_t>& target);

// ReverseSequence's seq_dim and batch_dim: distinct dimensions of `input` (rank known).
status check_reverse_sequence_dims(const partial_shape& input, int64_t seq_dim,
                                   int64_t batch_dim);

}  // namespace caflow
