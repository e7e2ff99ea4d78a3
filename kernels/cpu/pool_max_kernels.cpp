// MaxPool and MaxPoolGrad over NHWC: loops over a window's input pixels with the depth
// innermost, so each step is a contiguous, vectorisable run of in_depth elements.
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/pool_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class max_pool_op final : public pool::pool_kernel_base {
 public:
  using pool_kernel_base::pool_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto resolved = pool_kernel_geometry(params_, input.shape(), "input");
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    if (out == nullptr || out->num_elements() == 0) return;
    const T* x = input.data<T>();
    T* y = out->data<T>();
    const int64_t depth = g.in_depth;
    // One item per output row (an image's row of windows).
    pool::for_items<T>(ctx, g.batch * g.out_rows,
                       g.out_cols * g.filter_rows * g.filter_cols * depth, 1.0,
                       [&](int64_t begin, int64_t end) {
                         for (int64_t r = begin; r < end; ++r) pool_row(g, x, r, y);
                       });
  }

 private:
  static void pool_row(const conv2d_geometry& g, const T* x, int64_t r, T* y) {
    const int64_t n = r / g.out_rows, depth = g.in_depth;
    const pool::span_1d rows = pool::window_rows(g, r % g.out_rows);
    const T* image = x + n * g.in_rows * g.in_cols * depth;
    for (int64_t ow = 0; ow < g.out_cols; ++ow) {
      const pool::span_1d cols = pool::window_cols(g, ow);
      T* o = y + (r * g.out_cols + ow) * depth;
      std::fill_n(o, depth, std::numeric_limits<T>::lowest());
      for (int64_t h = rows.begin; h < rows.end; ++h) {
        for (int64_t w = cols.begin; w < cols.end; ++w) {
          const T* in = image + (h * g.in_cols + w) * depth;
          for (int64_t c = 0; c < depth; ++c) o[c] = in[c] > o[c] ? in[c] : o[c];
        }
      }
    }
  }
};

template <class T>
class max_pool_grad_op final : public pool::pool_kernel_base {
 public:
  using pool_kernel_base::pool_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& orig_input = ctx.input(0);
    const tensor& orig_output = ctx.input(1);
    const tensor& grad = ctx.input(2);
    auto resolved =
        max_pool_grad_geometry(params_, orig_input.shape(), orig_output.shape(), grad.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor* out = ctx.allocate_output(0, orig_input.shape());
    if (out == nullptr || out->num_elements() == 0) return;
    const T* x = orig_input.data<T>();
    const T* dy = grad.data<T>();
    T* dx = out->data<T>();
    // One item per image: windows overlap within an image, never across images, so workers
    // never add into the same element.
    const int64_t image_size = g.in_rows * g.in_cols * g.in_depth;
    pool::for_items<T>(ctx, g.batch,
                       g.out_rows * g.out_cols * g.filter_rows * g.filter_cols * g.in_depth, 2.0,
                       [&](int64_t begin, int64_t end) {
                         std::fill(dx + begin * image_size, dx + end * image_size, T{0});
                         std::vector<T> best(static_cast<size_t>(g.in_depth));
                         std::vector<int64_t> best_at(static_cast<size_t>(g.in_depth));
                         for (int64_t n = begin; n < end; ++n)
                           backprop_image(g, x, dy, n, best.data(), best_at.data(), dx);
                       });
  }

 private:
  // Finds the first maximum of each window and channel (row-major order within the window,
  // as TensorFlow's CPU kernel), and adds the window's gradient there.
  // The scratch rows `best` and `best_at` overlap nothing else (restrict), and the window scan
  // updates them without branches, so the depth loop vectorizes.
  static void backprop_image(const conv2d_geometry& g, const T* __restrict x,
                             const T* __restrict dy, int64_t n, T* __restrict best,
                             int64_t* __restrict best_at, T* __restrict dx) {
    const int64_t depth = g.in_depth, image_size = g.in_rows * g.in_cols * depth;
    const T* image = x + n * image_size;
    T* image_grad = dx + n * image_size;
    for (int64_t oh = 0; oh < g.out_rows; ++oh) {
      const pool::span_1d rows = pool::window_rows(g, oh);
      for (int64_t ow = 0; ow < g.out_cols; ++ow) {
        const pool::span_1d cols = pool::window_cols(g, ow);
        if (rows.begin >= rows.end || cols.begin >= cols.end) continue;
        const int64_t first = (rows.begin * g.in_cols + cols.begin) * depth;
        for (int64_t c = 0; c < depth; ++c) {
          best[c] = image[first + c];
          best_at[c] = first + c;
        }
        for (int64_t h = rows.begin; h < rows.end; ++h) {
          for (int64_t w = cols.begin; w < cols.end; ++w) {
            const int64_t at = (h * g.in_cols + w) * depth;
            for (int64_t c = 0; c < depth; ++c) {
              const T v = image[at + c];
              const bool better = v > best[c];
              best[c] = better ? v : best[c];
              best_at[c] = better ? at + c : best_at[c];
            }
          }
        }
        const T* g_out = dy + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
        for (int64_t c = 0; c < depth; ++c) image_grad[best_at[c]] += g_out[c];
      }
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MaxPool", device_cpu, "T", max_pool_op, float, double, int32_t,
                              int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("MaxPoolGrad", device_cpu, "T", max_pool_grad_op, float, double,
                              int32_t, int64_t, uint8_t);

}  // namespace caflow
