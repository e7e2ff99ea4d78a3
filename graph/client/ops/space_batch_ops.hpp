#pragma once
// Moving blocks of spatial positions into the batch and back, with TensorFlow's names and
// semantics: SpaceToBatchND and BatchToSpaceND (the building blocks of atrous convolution);
// and into the depth and back: SpaceToDepth and DepthToSpace.
//
//   // x [1, 4, 4, 1]: each of the 4 offsets of a 2x2 block becomes a batch entry.
//   auto b = ops::space_to_batch_nd(root, x, {2, 2}, {{0, 0}, {0, 0}});   // [4, 2, 2, 1]
//   auto y = ops::batch_to_space_nd(root, b, {2, 2}, {{0, 0}, {0, 0}});   // x again
//
// block_shape is an int32 or int64 vector of M >= 1 sizes; paddings and crops are [M, 2].
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// Zero-pads spatial dims 1..M of `input` by `paddings`, then splits each into blocks: output
// [batch * prod(block), padded_i / block_i..., rest...].
output space_to_batch_nd(const scope& s, const output& input, const output& block_shape,
                         const output& paddings);
output space_to_batch_nd(const scope& s, const output& input,
                         const std::vector<int64_t>& block_shape,
                         const std::vector<std::array<int64_t, 2>>& paddings);

// The inverse: interleaves the batch's blocks back into spatial dims, then crops them.
output batch_to_space_nd(const scope& s, const output& input, const output& block_shape,
                         const output& crops);
output batch_to_space_nd(const scope& s, const output& input,
                         const std::vector<int64_t>& block_shape,
                         const std::vector<std::array<int64_t, 2>>& crops);

struct depth_space_attrs {
  std::string data_format = "NHWC";  // the CPU kernels take NHWC only
};
// SpaceToDepth: each block_size x block_size block of a 4-D NHWC image becomes one position of
// block_size^2 times the depth, the block's rows outermost: out[n, h, w, (bh * b + bw) * C + c]
// = in[n, h * b + bh, w * b + bw, c]. Rows and columns must divide by block_size (>= 2).
output space_to_depth(const scope& s, const output& input, int64_t block_size,
                      const depth_space_attrs& attrs = {});
// DepthToSpace: the inverse; the depth must divide by block_size^2.
output depth_to_space(const scope& s, const output& input, int64_t block_size,
                      const depth_space_attrs& attrs = {});

}  // namespace caflow::ops
