#pragma once
// The geometry of SpaceToBatchND and BatchToSpaceND, shared by their shape functions
// (graph/ops/space_batch_ops.cpp) and kernels (kernels/cpu/space_batch_kernels.cpp).
// Errors carry no node name: callers add it.
//
// Both relate a "space" tensor [batch, s_1..s_M, rest...] and a "batch" tensor
// [batch * prod(block), s_1'/block_1.., rest...], where s_i' = s_i + pads_i (SpaceToBatchND's
// paddings, BatchToSpaceND's crops): batch element (o * batch + b) at spatial position p holds
// space element b at p_i * block_i + o_i - before_i, for the block offset o (row-major over
// the block).
#include <cstdint>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"

namespace caflow {

struct space_batch_geometry {
  std::vector<int64_t> block;          // M block sizes, each >= 1
  std::vector<int64_t> before, after;  // M paddings (or crops)
  std::vector<int64_t> space, batch;   // the two shapes; -1 where unknown
};

// SpaceToBatchND: `input` is the space tensor (rank >= 1 + M), `pads` its M x 2 paddings; the
// padded spatial dims must divide by the block.
status_or<space_batch_geometry> space_to_batch_geometry(const partial_shape& input,
                                                        const std::vector<int64_t>& block,
                                                        const std::vector<int64_t>& pads);

// BatchToSpaceND: `input` is the batch tensor, whose batch must divide by prod(block); the
// crops may not exceed the block-expanded spatial dims.
status_or<space_batch_geometry> batch_to_space_geometry(const partial_shape& input,
                                                        const std::vector<int64_t>& block,
                                                        const std::vector<int64_t>& crops);

}  // namespace caflow
