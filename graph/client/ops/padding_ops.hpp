#pragma once
// Padding beyond Pad's zeros, with TensorFlow's names and semantics: PadV2 (a constant value),
// MirrorPad (REFLECT or SYMMETRIC copies of the border) and MirrorPadGrad (its gradient).
//
//   auto y = ops::mirror_pad(root, x, {{1, 1}, {2, 2}}, "REFLECT");
//   // x = [[1, 2, 3], [4, 5, 6]] gives
//   // [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1], [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, ...]]
//
// `paddings` is an int32 or int64 [rank, 2] tensor of {before, after} per dimension.
// REFLECT mirrors without the edge element (pads of at most dim - 1), SYMMETRIC with it
// (pads of at most dim).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// Pad with `constant_values` (a scalar of input's dtype) instead of zeros.
output pad_v2(const scope& s, const output& input, const output& paddings,
              const output& constant_values);

output mirror_pad(const scope& s, const output& input, const output& paddings,
                  const std::string& mode);
output mirror_pad(const scope& s, const output& input,
                  const std::vector<std::array<int64_t, 2>>& paddings, const std::string& mode);
inline output mirror_pad(const scope& s, const output& input,
                         std::initializer_list<std::array<int64_t, 2>> paddings,
                         const std::string& mode) {
  return mirror_pad(s, input, std::vector<std::array<int64_t, 2>>(paddings), mode);
}

// Folds a gradient shaped like MirrorPad's output back onto its input: each mirrored element
// adds to the element it copied.
output mirror_pad_grad(const scope& s, const output& input, const output& paddings,
                       const std::string& mode);

}  // namespace caflow::ops
