#include "kernels/cpu/conv_util.hpp"

#include <algorithm>
#include <atomic>

#include "kernels/cpu/eigen_eval.hpp"

namespace caflow::conv {
namespace {

// Below this much arithmetic a whole convolution runs on the calling thread.
inline constexpr double small_conv_flops = 256 * 1024;

}  // namespace

conv2d_kernel_base::conv2d_kernel_base(kernel_construction& c) : op_kernel(c) {
  CAFLOW_OP_REQUIRES_OK(c, read_conv2d_kernel_params(c, device_cpu, &params_, /*dilations_supported=*/true));
}

bool is_pointwise(const conv2d_geometry& g) {
  return g.filter_rows == 1 && g.filter_cols == 1 && g.stride_rows == 1 && g.stride_cols == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.out_rows == g.in_rows && g.out_cols == g.in_cols;
}

// Short runs (a window row of a shallow input) are copied inline: a memcpy call per run
// would cost more than the copy.
template <class T>
inline void copy_run(const T* src, int64_t n, T* dst) {
  if (n > 16) {
    std::copy_n(src, n, dst);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

template <class T>
void im2col(const conv2d_geometry& g, const T* input, int64_t begin, int64_t end, T* cols) {
  const int64_t depth = g.in_depth, row_len = g.filter_cols * depth, patch = g.patch_size();
  const int64_t image_size = g.in_rows * g.in_cols * depth;
  const int64_t dr = g.dilation_rows, dc = g.dilation_cols;
  int64_t ow = begin % g.out_cols, oh = begin / g.out_cols % g.out_rows;
  int64_t n = begin / (g.out_cols * g.out_rows);
  for (int64_t m = begin; m < end; ++m, cols += patch) {
    const T* image = input + n * image_size;
    const int64_t ih0 = oh * g.stride_rows - g.pad_top, iw0 = ow * g.stride_cols - g.pad_left;
    // A window row inside the columns is one contiguous run of the input (W and C adjacent)
    // when its taps are adjacent.
    const bool cols_inside = dc == 1 && iw0 >= 0 && iw0 + g.filter_cols <= g.in_cols;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      T* dst = cols + kh * row_len;
      const int64_t ih = ih0 + kh * dr;
      if (ih < 0 || ih >= g.in_rows) {
        std::fill_n(dst, row_len, T{0});
      } else if (cols_inside) {
        copy_run(image + (ih * g.in_cols + iw0) * depth, row_len, dst);
      } else {
        for (int64_t kw = 0; kw < g.filter_cols; ++kw, dst += depth) {
          const int64_t iw = iw0 + kw * dc;
          if (iw < 0 || iw >= g.in_cols)
            std::fill_n(dst, depth, T{0});
          else
            copy_run(image + (ih * g.in_cols + iw) * depth, depth, dst);
        }
      }
    }
    if (++ow == g.out_cols) {
      ow = 0;
      if (++oh == g.out_rows) {
        oh = 0;
        ++n;
      }
    }
  }
}

template <class T>
void col2im_add(const conv2d_geometry& g, const T* cols, int64_t begin, int64_t end,
                T* input_grad) {
  const int64_t depth = g.in_depth, row_len = g.filter_cols * depth, patch = g.patch_size();
  const int64_t image_size = g.in_rows * g.in_cols * depth;
  const int64_t dr = g.dilation_rows, dc = g.dilation_cols;
  int64_t ow = begin % g.out_cols, oh = begin / g.out_cols % g.out_rows;
  int64_t n = begin / (g.out_cols * g.out_rows);
  for (int64_t m = begin; m < end; ++m, cols += patch) {
    T* image = input_grad + n * image_size;
    const int64_t ih0 = oh * g.stride_rows - g.pad_top, iw0 = ow * g.stride_cols - g.pad_left;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = ih0 + kh * dr;
      if (ih < 0 || ih >= g.in_rows) continue;
      const T* row = cols + kh * row_len;
      if (dc == 1) {
        // The taps of one window row inside the input are one contiguous run of both buffers.
        const int64_t kw_begin = std::max<int64_t>(0, -iw0);
        const int64_t kw_end = std::min<int64_t>(g.filter_cols, g.in_cols - iw0);
        if (kw_begin >= kw_end) continue;
        const T* src = row + kw_begin * depth;
        T* dst = image + (ih * g.in_cols + iw0 + kw_begin) * depth;
        const int64_t len = (kw_end - kw_begin) * depth;
        for (int64_t i = 0; i < len; ++i) dst[i] += src[i];
        continue;
      }
      for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const int64_t iw = iw0 + kw * dc;
        if (iw < 0 || iw >= g.in_cols) continue;
        const T* src = row + kw * depth;
        T* dst = image + (ih * g.in_cols + iw) * depth;
        for (int64_t i = 0; i < depth; ++i) dst[i] += src[i];
      }
    }
    if (++ow == g.out_cols) {
      ow = 0;
      if (++oh == g.out_rows) {
        oh = 0;
        ++n;
      }
    }
  }
}

template void im2col<float>(const conv2d_geometry&, const float*, int64_t, int64_t, float*);
template void im2col<double>(const conv2d_geometry&, const double*, int64_t, int64_t, double*);
template void col2im_add<float>(const conv2d_geometry&, const float*, int64_t, int64_t, float*);
template void col2im_add<double>(const conv2d_geometry&, const double*, int64_t, int64_t,
                                 double*);

tiling plan_tiles(const kernel_context& ctx, int64_t units, int64_t unit_bytes,
                  double unit_flops) {
  tiling plan;
  if (units <= 0) return plan;
  const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
  const int64_t threads = pool == nullptr ? 1 : std::max(1, pool->numThreads());
  const bool parallel = threads > 1 && static_cast<double>(units) * unit_flops >= small_conv_flops;
  const int64_t by_budget =
      unit_bytes > 0 ? std::max<int64_t>(1, scratch_budget_bytes / unit_bytes) : units;
  // About four tiles per worker even out uneven progress without shrinking products much.
  const int64_t by_balance = parallel ? (units + 4 * threads - 1) / (4 * threads) : units;
  plan.tile_units = std::max<int64_t>(1, std::min({by_budget, by_balance, units}));
  plan.tiles = (units + plan.tile_units - 1) / plan.tile_units;
  plan.shards = parallel ? std::min(threads, plan.tiles) : 1;
  return plan;
}

void run_tiles(const kernel_context& ctx, const tiling& plan,
               const std::function<void(int64_t shard, int64_t tile)>& fn) {
  if (plan.shards <= 1) {
    for (int64_t t = 0; t < plan.tiles; ++t) fn(0, t);
    return;
  }
  std::atomic<int64_t> next{0};
  // A cost far above Eigen's per-thread threshold makes every shard its own block.
  ctx.eigen_cpu().parallelFor(plan.shards, Eigen::TensorOpCost(0, 0, 1e9),
                              [&](Eigen::Index begin, Eigen::Index end) {
                                for (Eigen::Index shard = begin; shard < end; ++shard) {
                                  for (int64_t t = next.fetch_add(1); t < plan.tiles;
                                       t = next.fetch_add(1))
                                    fn(shard, t);
                                }
                              });
}

}  // namespace caflow::conv
