// MaxPool, MaxPoolGrad and MaxPoolGradGrad over NHWC: loops over a window's input pixels with the
// depth innermost, so each step is a contiguous, vectorisable run of in_depth elements.
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/pool_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

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

// The first maximum of each channel in the window (oh, ow) of `image` (row-major order within
// the window, as TensorFlow's CPU kernel), as offsets into the image in `best_at`. The scan
// updates the scratch rows without branches, so the depth loop vectorizes. False for an empty
// window.
template <class T>
bool window_argmax(const conv2d_geometry& g, const T* __restrict image, int64_t oh, int64_t ow,
                   T* __restrict best, int64_t* __restrict best_at) {
  const int64_t depth = g.in_depth;
  const pool::span_1d rows = pool::window_rows(g, oh);
  const pool::span_1d cols = pool::window_cols(g, ow);
  if (rows.begin >= rows.end || cols.begin >= cols.end) return false;
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
  return true;
}

// MaxPoolGrad (GradGrad false): each window's gradient is added at the window's maxima in
// orig_input; grad is shaped like orig_output, the result like orig_input.
// MaxPoolGradGrad (GradGrad true, TF's): grad is shaped like orig_input, and each window of the
// result takes grad at the window's maxima; it is MaxPoolGrad's adjoint in its gradient.
template <class T, bool GradGrad>
class max_pool_backprop_op final : public pool::pool_kernel_base {
 public:
  using pool_kernel_base::pool_kernel_base;

  void compute(kernel_context& ctx) override {
    const tensor& orig_input = ctx.input(0);
    const tensor& orig_output = ctx.input(1);
    const tensor& grad = ctx.input(2);
    if (GradGrad)
      CAFLOW_OP_REQUIRES(ctx, grad.shape() == orig_input.shape(),
                         errors::invalid_argument("grad of shape ", grad.shape().to_string(),
                                                  " must have orig_input's shape ",
                                                  orig_input.shape().to_string()));
    auto resolved = max_pool_grad_geometry(params_, orig_input.shape(), orig_output.shape(),
                                           GradGrad ? orig_output.shape() : grad.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor* out = ctx.allocate_output(0, GradGrad ? orig_output.shape() : orig_input.shape());
    if (out == nullptr || out->num_elements() == 0) return;
    const T* x = orig_input.data<T>();
    const T* dy = grad.data<T>();
    T* result = out->data<T>();
    // One item per image: windows overlap within an image, never across images, so workers
    // never add into the same element.
    pool::for_items<T>(ctx, g.batch,
                       g.out_rows * g.out_cols * g.filter_rows * g.filter_cols * g.in_depth, 2.0,
                       [&](int64_t begin, int64_t end) {
                         std::vector<T> best(static_cast<size_t>(g.in_depth));
                         std::vector<int64_t> best_at(static_cast<size_t>(g.in_depth));
                         for (int64_t n = begin; n < end; ++n)
                           image(g, x, dy, n, best.data(), best_at.data(), result);
                       });
  }

 private:
  static void image(const conv2d_geometry& g, const T* x, const T* grad, int64_t n, T* best,
                    int64_t* best_at, T* result) {
    const int64_t depth = g.in_depth, image_size = g.in_rows * g.in_cols * depth;
    const T* in = x + n * image_size;
    if (!GradGrad) std::fill_n(result + n * image_size, image_size, T{0});
    for (int64_t oh = 0; oh < g.out_rows; ++oh) {
      for (int64_t ow = 0; ow < g.out_cols; ++ow) {
        const int64_t window = ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
        const bool found = window_argmax(g, in, oh, ow, best, best_at);
        if (GradGrad) {
          for (int64_t c = 0; c < depth; ++c)
            result[window + c] = found ? grad[n * image_size + best_at[c]] : T{0};
        } else if (found) {
          for (int64_t c = 0; c < depth; ++c)
            result[n * image_size + best_at[c]] += grad[window + c];
        }
      }
    }
  }
};

template <class T>
using max_pool_grad_op = max_pool_backprop_op<T, false>;
template <class T>
using max_pool_grad_grad_op = max_pool_backprop_op<T, true>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MaxPool", device_cpu, "T", max_pool_op, float, double, int32_t,
                              int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("MaxPoolGrad", device_cpu, "T", max_pool_grad_op, float, double,
                              int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("MaxPoolGradGrad", device_cpu, "T", max_pool_grad_grad_op, float,
                              double, int32_t, int64_t, uint8_t);

}  // namespace caflow
