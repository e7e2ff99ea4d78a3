// AvgPool and AvgPoolGrad over NHWC. A window's mean is over its elements inside the input
// (TensorFlow's rule for SAME padding), so the divisor is the clipped window's area.
#include <algorithm>

#include "kernels/cpu/pool_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class avg_pool_op final : public pool::pool_kernel_base {
 public:
  using pool_kernel_base::pool_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto resolved = pool_kernel_geometry(params_, input.shape(), "value");
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    if (out == nullptr || out->num_elements() == 0) return;
    const T* x = input.data<T>();
    T* y = out->data<T>();
    pool::for_items<T>(ctx, g.batch * g.out_rows,
                       g.out_cols * g.filter_rows * g.filter_cols * g.in_depth, 1.0,
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
      std::fill_n(o, depth, T{0});
      for (int64_t h = rows.begin; h < rows.end; ++h) {
        for (int64_t w = cols.begin; w < cols.end; ++w) {
          const T* in = image + (h * g.in_cols + w) * depth;
          for (int64_t c = 0; c < depth; ++c) o[c] += in[c];
        }
      }
      const int64_t count = (rows.end - rows.begin) * (cols.end - cols.begin);
      if (count > 0) {
        const T divisor = static_cast<T>(count);
        for (int64_t c = 0; c < depth; ++c) o[c] /= divisor;
      }
    }
  }
};

template <class T>
class avg_pool_grad_op final : public pool::pool_kernel_base {
 public:
  using pool_kernel_base::pool_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& grad = ctx.input(1);
    auto resolved = avg_pool_grad_geometry(params_, ctx.input(0), grad.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor* out = ctx.allocate_output(0, resolved->shape);
    if (out == nullptr || out->num_elements() == 0) return;
    const T* dy = grad.data<T>();
    T* dx = out->data<T>();
    // One item per image: windows overlap within an image, never across images.
    const int64_t image_size = g.in_rows * g.in_cols * g.in_depth;
    pool::for_items<T>(ctx, g.batch,
                       g.out_rows * g.out_cols * g.filter_rows * g.filter_cols * g.in_depth, 1.0,
                       [&](int64_t begin, int64_t end) {
                         std::fill(dx + begin * image_size, dx + end * image_size, T{0});
                         for (int64_t n = begin; n < end; ++n) backprop_image(g, dy, n, dx);
                       });
  }

 private:
  static void backprop_image(const conv2d_geometry& g, const T* dy, int64_t n, T* dx) {
    const int64_t depth = g.in_depth;
    T* image_grad = dx + n * g.in_rows * g.in_cols * depth;
    for (int64_t oh = 0; oh < g.out_rows; ++oh) {
      const pool::span_1d rows = pool::window_rows(g, oh);
      for (int64_t ow = 0; ow < g.out_cols; ++ow) {
        const pool::span_1d cols = pool::window_cols(g, ow);
        const int64_t count = (rows.end - rows.begin) * (cols.end - cols.begin);
        if (count <= 0) continue;
        const T scale = T{1} / static_cast<T>(count);
        const T* g_out = dy + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
        for (int64_t h = rows.begin; h < rows.end; ++h) {
          for (int64_t w = cols.begin; w < cols.end; ++w) {
            T* in = image_grad + (h * g.in_cols + w) * depth;
            for (int64_t c = 0; c < depth; ++c) in[c] += g_out[c] * scale;
          }
        }
      }
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("AvgPool", device_cpu, "T", avg_pool_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AvgPoolGrad", device_cpu, "T", avg_pool_grad_op, float, double);

}  // namespace caflow
