#pragma once
// The rules of PadV2, MirrorPad and MirrorPadGrad, shared by their shape functions
// (graph/ops/padding_ops.cpp) and kernels (kernels/cpu/mirror_pad_kernels.cpp). Errors
// carry no node name: callers add it.
#include <cstdint>
#include <string_view>

#include "graph/core/status.hpp"

namespace caflow {

// constant: PadV2's fill value. reflect: mirror around the edge element, which is not repeated
// ([1,2,3] padded by 2 is [3,2,1,2,3,2,1]); symmetric: mirror including it ([2,1,1,2,3,3,2]).
enum class pad_mode { constant, reflect, symmetric };

// "REFLECT" or "SYMMETRIC"; the error lists both.
status_or<pad_mode> parse_mirror_mode(std::string_view mode);

// Pads `before` and `after` of dimension `dim` (of size `size`, -1 when unknown) are
// non-negative and, when mirrored, fit the size: at most size - 1 for REFLECT, size for
// SYMMETRIC.
status check_pads(pad_mode mode, int dim, int64_t before, int64_t after, int64_t size);

// The input index that output index `o` of a padded dimension reads: o - before when inside
// [0, size), the mirrored index otherwise, and -1 (the constant) for pad_mode::constant.
// REQUIRES: the pads passed check_pads.
inline int64_t padded_source(pad_mode mode, int64_t o, int64_t before, int64_t size) {
  const int64_t i = o - before;
  if (i >= 0 && i < size) return i;
  if (mode == pad_mode::constant) return -1;
  const int64_t edge = mode == pad_mode::reflect ? 0 : 1;
  return i < 0 ? -i - edge : 2 * size - 2 + edge - i;
}

}  // namespace caflow
