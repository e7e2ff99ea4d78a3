#include "kernels/cpu/array_kernel_util.hpp"

#include <algorithm>

#include "kernels/cpu/eigen_eval.hpp"

namespace caflow::array_kernels {

namespace {

// Below this many bytes a hand-off to the pool costs more than the copy.
constexpr int64_t parallel_bytes_threshold = 128 * 1024;
constexpr size_t copy_block_bytes = 32 * 1024;
// Edge of the square tiles a transposed inner dimension is copied in: 32 source rows of one
// cache line stay in L1 while the destination is written in order.
constexpr int64_t tile = 32;

// Walks the row-major multi-index over `rank` dimensions, tracking the source offset.
struct odometer {
  int rank = 0;
  const int64_t* counts = nullptr;
  const int64_t* steps = nullptr;
  std::array<int64_t, max_rank> index{};
  int64_t offset = 0;

  void seek(int64_t linear) {
    offset = 0;
    for (int k = rank - 1; k >= 0; --k) {
      index[k] = linear % counts[k];
      linear /= counts[k];
      offset += index[k] * steps[k];
    }
  }
  void advance() {
    for (int k = rank - 1; k >= 0; --k) {
      offset += steps[k];
      if (++index[k] < counts[k]) return;
      offset -= index[k] * steps[k];
      index[k] = 0;
    }
  }
};

int64_t product(const int64_t* counts, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i) p *= counts[i];
  return p;
}

// Inner dimension read with step 1: one memcpy per output row.
void copy_rows(const kernel_context& ctx, const strided_layout& l, const char* src, char* dst,
               size_t elem_size) {
  const int outer_rank = l.rank - 1;
  const int64_t row_bytes = l.counts[outer_rank] * static_cast<int64_t>(elem_size);
  parallel_for(
      ctx, product(l.counts.data(), outer_rank), row_bytes, [&](int64_t begin, int64_t end) {
        odometer it{outer_rank, l.counts.data(), l.steps.data()};
        it.seek(begin);
        for (int64_t row = begin; row < end; ++row, it.advance())
          std::memcpy(dst + row * row_bytes, src + it.offset * int64_t(elem_size), row_bytes);
      });
}

// Inner dimension read with a stride (e.g. a reversal or every other element).
template <class W>
void copy_strided_rows(const kernel_context& ctx, const strided_layout& l, const W* src, W* dst) {
  const int outer_rank = l.rank - 1;
  const int64_t n = l.counts[outer_rank], step = l.steps[outer_rank];
  parallel_for(ctx, product(l.counts.data(), outer_rank), n * int64_t(sizeof(W)),
               [&](int64_t begin, int64_t end) {
                 odometer it{outer_rank, l.counts.data(), l.steps.data()};
                 it.seek(begin);
                 for (int64_t row = begin; row < end; ++row, it.advance()) {
                   const W* s = src + it.offset;
                   W* d = dst + row * n;
                   for (int64_t j = 0; j < n; ++j) d[j] = s[j * step];
                 }
               });
}

// A transpose of the inner dimension `a` (the last) with dimension `b` (read with step 1):
// square tiles so both the reads along b and the writes along a stay in cache.
template <class W>
void copy_tiled(const kernel_context& ctx, const strided_layout& l, int b, const W* src, W* dst) {
  const int a = l.rank - 1;
  std::array<int64_t, max_rank> dst_strides{};
  dst_strides[a] = 1;
  for (int k = a - 1; k >= 0; --k) dst_strides[k] = dst_strides[k + 1] * l.counts[k + 1];
  // The dimensions other than a and b, walked per unit of work.
  std::array<int64_t, max_rank> outer_counts{}, outer_src{}, outer_dst{};
  int outer_rank = 0;
  for (int k = 0; k < a; ++k) {
    if (k == b) continue;
    outer_counts[outer_rank] = l.counts[k];
    outer_src[outer_rank] = l.steps[k];
    outer_dst[outer_rank] = dst_strides[k];
    ++outer_rank;
  }
  const int64_t na = l.counts[a], sa = l.steps[a], nb = l.counts[b], db = dst_strides[b];
  const int64_t tiles_b = (nb + tile - 1) / tile;
  parallel_for(ctx, product(outer_counts.data(), outer_rank) * tiles_b,
               tile * na * int64_t(sizeof(W)), [&](int64_t begin, int64_t end) {
                 for (int64_t unit = begin; unit < end; ++unit) {
                   int64_t outer = unit / tiles_b, s_off = 0, d_off = 0;
                   for (int k = outer_rank - 1; k >= 0; --k) {
                     const int64_t i = outer % outer_counts[k];
                     outer /= outer_counts[k];
                     s_off += i * outer_src[k];
                     d_off += i * outer_dst[k];
                   }
                   const int64_t x0 = (unit % tiles_b) * tile, x1 = std::min(x0 + tile, nb);
                   for (int64_t y0 = 0; y0 < na; y0 += tile) {
                     const int64_t y1 = std::min(y0 + tile, na);
                     for (int64_t x = x0; x < x1; ++x) {
                       const W* s = src + s_off + x;
                       W* d = dst + d_off + x * db;
                       for (int64_t y = y0; y < y1; ++y) d[y] = s[y * sa];
                     }
                   }
                 }
               });
}

}  // namespace

void parallel_for(const kernel_context& ctx, int64_t units, int64_t bytes_per_unit,
                  const std::function<void(int64_t, int64_t)>& fn) {
  if (units <= 0) return;
  const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
  if (pool == nullptr || units == 1 || units * bytes_per_unit < parallel_bytes_threshold) {
    fn(0, units);
    return;
  }
  const double bytes = static_cast<double>(bytes_per_unit);
  pool->parallelFor(units, Eigen::TensorOpCost(bytes, bytes, 0),
                    [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
}

void parallel_copy(const kernel_context& ctx, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const auto blocks = static_cast<int64_t>((bytes + copy_block_bytes - 1) / copy_block_bytes);
  parallel_for(ctx, blocks, copy_block_bytes, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin) * copy_block_bytes;
    const size_t to = std::min(bytes, static_cast<size_t>(end) * copy_block_bytes);
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
  });
}

std::array<int64_t, max_rank> row_strides(const tensor_shape& s) {
  std::array<int64_t, max_rank> strides{};
  int64_t stride = 1;
  for (int k = s.rank() - 1; k >= 0; --k) {
    strides[k] = stride;
    stride *= s.dim(k);
  }
  return strides;
}

tensor subview(const tensor& t, int64_t elem_offset, const tensor_shape& shape) {
  if (shape.num_elements() == 0 || !t.buf()) return tensor(t.type(), shape);
  const auto base = static_cast<size_t>(static_cast<const char*>(t.raw_data()) -
                                        static_cast<const char*>(t.buf()->data()));
  return tensor::view(t.buf(), base + static_cast<size_t>(elem_offset) * dtype_size(t.type()),
                      t.type(), shape);
}

strided_layout strided_layout::make(std::span<const int64_t> counts,
                                    std::span<const int64_t> steps) {
  strided_layout l;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) l.empty = true;
    if (counts[k] == 1) continue;
    if (l.rank > 0 && l.steps[l.rank - 1] == counts[k] * steps[k]) {
      l.counts[l.rank - 1] *= counts[k];
      l.steps[l.rank - 1] = steps[k];
    } else {
      l.counts[l.rank] = counts[k];
      l.steps[l.rank] = steps[k];
      ++l.rank;
    }
  }
  return l;
}

void copy_strided(const kernel_context& ctx, const strided_layout& l, const void* src, void* dst,
                  size_t elem_size) {
  if (l.empty) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (l.rank == 0) {
    std::memcpy(d, s, elem_size);
    return;
  }
  if (l.contiguous()) {
    parallel_copy(ctx, d, s, static_cast<size_t>(l.counts[0]) * elem_size);
    return;
  }
  if (l.steps[l.rank - 1] == 1) {
    copy_rows(ctx, l, s, d, elem_size);
    return;
  }
  int unit_dim = -1;
  for (int k = 0; k + 1 < l.rank; ++k)
    if (l.steps[k] == 1) unit_dim = k;
  with_word(elem_size, [&]<class W>() {
    if (unit_dim >= 0)
      copy_tiled<W>(ctx, l, unit_dim, reinterpret_cast<const W*>(s), reinterpret_cast<W*>(d));
    else
      copy_strided_rows<W>(ctx, l, reinterpret_cast<const W*>(s), reinterpret_cast<W*>(d));
  });
}

}  // namespace caflow::array_kernels
