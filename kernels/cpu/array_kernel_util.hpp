#pragma once
// Helpers shared by the data-movement kernels (Transpose, ConcatV2, Split, Slice,
// StridedSlice, GatherV2, Tile, Pad). They move raw bytes: only the element size matters,
// so each algorithm is compiled once per size (1, 4 or 8 bytes), not once per dtype, while
// the kernels are still registered per dtype.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/common/element_name.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::array_kernels {

// Calls `f.template operator()<W>()` with the unsigned integer type as wide as one element.
// REQUIRES: elem_size is 1, 4 or 8 (every caflow dtype).
template <class F>
void with_word(size_t elem_size, F&& f) {
  if (elem_size == 1)
    f.template operator()<uint8_t>();
  else if (elem_size == 4)
    f.template operator()<uint32_t>();
  else
    f.template operator()<uint64_t>();
}

// Runs fn(begin, end) over [0, units) in disjoint ranges: inline for small jobs, on the
// device's intra-op pool when units * bytes_per_unit is large. Returns when all are done.
void parallel_for(const kernel_context& ctx, int64_t units, int64_t bytes_per_unit,
                  const std::function<void(int64_t, int64_t)>& fn);

// Runs fn(j0, j1) over the columns [0, inner) of `rows` rows of `elem_bytes`-byte elements, in
// blocks of 512 columns: for kernels where every row folds into the same output columns, so
// that blocks never write the same element.
inline void parallel_for_column_blocks(const kernel_context& ctx, int64_t rows, int64_t inner,
                                       int64_t elem_bytes,
                                       const std::function<void(int64_t, int64_t)>& fn) {
  constexpr int64_t column_block = 512;
  const int64_t blocks = (inner + column_block - 1) / column_block;
  const int64_t bytes = rows * std::min(inner, column_block) * elem_bytes;
  parallel_for(ctx, blocks, bytes, [&](int64_t begin, int64_t end) {
    fn(begin * column_block, std::min(inner, end * column_block));
  });
}

// memcpy, split over the intra-op pool when large.
void parallel_copy(const kernel_context& ctx, void* dst, const void* src, size_t bytes);

using ::caflow::element_name;  // kernels/common/element_name.hpp

// Row-major element strides of `s`.
std::array<int64_t, max_rank> row_strides(const tensor_shape& s);

// A tensor of `shape` sharing `t`'s bytes from element `elem_offset` on (zero-copy).
// REQUIRES: the elements fit inside `t`.
tensor subview(const tensor& t, int64_t elem_offset, const tensor_shape& shape);

// A read pattern: output element (i_0, .., i_{r-1}), stored densely in row-major order, comes
// from source element sum(i_k * steps[k]) (steps in elements, possibly negative). `make`
// drops dimensions of count 1 and merges neighbours that read linearly, so a transpose,
// slice or reversal is described by as few dimensions as its memory layout allows.
struct strided_layout {
  int rank = 0;
  std::array<int64_t, max_rank> counts{}, steps{};
  bool empty = false;  // some count is 0: nothing to read

  static strided_layout make(std::span<const int64_t> counts, std::span<const int64_t> steps);
  // One forward run of consecutive source elements: the output can be a view of the source.
  bool contiguous() const { return !empty && (rank == 0 || (rank == 1 && steps[0] == 1)); }
};

// Fills `dst` (densely, row-major) from `src` following `layout`. Contiguous inner runs are
// memcpy'd; transposed inner dimensions are copied in cache-sized tiles; large copies run on
// the intra-op pool.
void copy_strided(const kernel_context& ctx, const strided_layout& layout, const void* src,
                  void* dst, size_t elem_size);

}  // namespace caflow::array_kernels
