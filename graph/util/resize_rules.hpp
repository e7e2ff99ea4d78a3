#pragma once
// Where ResizeBilinear and ResizeNearestNeighbor sample, as TensorFlow's image_resizer_state.h
// has it, shared by the resize kernels and their gradients (kernels/cpu/resize_kernels.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace caflow {

// in / out, or (in - 1) / (out - 1) with align_corners (and out > 1).
inline float resize_scale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

// Bilinear: output index o reads input indices lower and upper, weighted 1 - lerp and lerp.
struct linear_sample {
  int64_t lower = 0, upper = 0;
  float lerp = 0;
};
inline linear_sample linear_sample_of(int64_t o, float scale, int64_t in, bool half_pixel) {
  const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                             : static_cast<float>(o) * scale;
  const float f = std::floor(x);
  linear_sample s;
  s.lower = std::max<int64_t>(static_cast<int64_t>(f), 0);
  s.upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(x)), in - 1);
  s.lerp = x - f;
  return s;
}

// Nearest neighbour: the input index output index o copies.
inline int64_t nearest_sample_of(int64_t o, float scale, int64_t in, bool align_corners,
                                 bool half_pixel) {
  const float x = half_pixel ? (static_cast<float>(o) + 0.5f) * scale
                             : static_cast<float>(o) * scale;
  int64_t i = std::min<int64_t>(
      align_corners ? static_cast<int64_t>(std::round(x)) : static_cast<int64_t>(std::floor(x)),
      in - 1);
  if (half_pixel) i = std::max<int64_t>(0, i);
  return i;
}

}  // namespace caflow
