#pragma once
// How caflow's convolution buffers look to cuDNN's backend (graph) API, which takes every
// tensor as dims in N,C,H,W order (K,C,R,S for a filter) plus a stride per dim, so a layout is
// chosen by strides alone. That lets the engine path read caflow's NHWC batches and, where an
// engine accepts it, its HWIO filters in place, without the transposed copy the legacy API
// needs. Host arithmetic only (no CUDA), tested without a GPU.
#include <array>
#include <cstdint>

#include "graph/util/conv_geometry.hpp"

namespace caflow::gpu {

// Dims and strides (in elements) in cuDNN's order.
struct strided_dims {
  std::array<int64_t, 4> dims{}, strides{};
};

// n images of rows x cols pixels of depth channels, stored NHWC.
inline strided_dims nhwc_strided(int64_t n, int64_t rows, int64_t cols, int64_t depth) {
  return {{n, depth, rows, cols}, {rows * cols * depth, 1, cols * depth, depth}};
}

// The order a filter's elements are stored in.
enum class filter_layout {
  hwio,  // caflow's and TensorFlow's [rows, cols, in_depth, out_depth]: read in place
  krsc,  // [out_depth, rows, cols, in_depth]: a transposed copy, which every engine takes
};

inline const char* to_string(filter_layout l) { return l == filter_layout::hwio ? "HWIO" : "KRSC"; }

// The filter of `g` as K,C,R,S dims with the strides of `layout`.
inline strided_dims filter_strided(const conv2d_geometry& g, filter_layout layout) {
  const int64_t k = g.out_depth, c = g.in_depth, r = g.filter_rows, s = g.filter_cols;
  if (layout == filter_layout::hwio) return {{k, c, r, s}, {1, k, s * c * k, c * k}};
  return {{k, c, r, s}, {r * s * c, 1, s * c, c}};
}

// The alignment cuDNN is promised for a buffer: the largest power of two dividing its address,
// at most 16 bytes (engines ask for no more; a promise above the truth would be a wrong read).
// It is part of a plan's key, since an engine chosen for aligned buffers may not take others.
inline int64_t byte_alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  int64_t align = 16;
  while (align > 1 && a % static_cast<uintptr_t>(align) != 0) align /= 2;
  return align;
}

// The backend's padding of one spatial dimension: it pads before and after independently, so
// TensorFlow's asymmetric SAME (the odd zero after) needs no padded copy. `post` may be less
// than the padding the last window reaches when trailing input is unused (VALID with a stride
// that does not divide), as cuDNN's window count floors.
struct pre_post {
  int64_t pre = 0, post = 0;
};
inline pre_post backend_padding(int64_t in, int64_t window, int64_t stride, int64_t out,
                                int64_t before) {
  const int64_t after = (out - 1) * stride + window - in - before;
  return {before, after > 0 ? after : 0};
}

}  // namespace caflow::gpu
