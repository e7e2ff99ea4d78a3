// ResizeBilinear, ResizeNearestNeighbor and their gradients over NHWC images (sampling rules in
// graph/util/resize_rules.hpp). Each output pixel's sample positions are worked out once per
// row and column; channels are innermost. The gradients add into the input image, one batch
// entry per worker.
#include <vector>

#include "graph/util/resize_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for;

class resize_base : public op_kernel {
 public:
  explicit resize_base(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("align_corners", &align_corners_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("half_pixel_centers", &half_pixel_));
    CAFLOW_OP_REQUIRES(c, !(align_corners_ && half_pixel_),
                       errors::invalid_argument("align_corners and half_pixel_centers cannot both "
                                                "be true"));
  }

 protected:
  static status check_image(const tensor& t, const char* what) {
    if (t.rank() != 4)
      return errors::invalid_argument(what, " must be 4-dimensional, got shape ",
                                      t.shape().to_string());
    return {};
  }
  // The {rows, cols} of a size input: two positive int32s.
  static status_or<std::array<int64_t, 2>> size_of(const tensor& t) {
    if (t.rank() != 1 || t.num_elements() != 2)
      return errors::invalid_argument("size must be a vector of 2 entries, got shape ",
                                      t.shape().to_string());
    const int32_t* v = t.data<int32_t>();
    if (v[0] <= 0 || v[1] <= 0)
      return errors::invalid_argument("size must be positive, got [", v[0], ",", v[1], "]");
    return std::array<int64_t, 2>{v[0], v[1]};
  }

  bool align_corners_ = false, half_pixel_ = false;
};

template <class T>
class resize_bilinear_op final : public resize_base {
 public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_image(in, "images"));
    auto size = size_of(ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, size.get_status());
    const int64_t n = in.dim(0), ih = in.dim(1), iw = in.dim(2), c = in.dim(3);
    const int64_t oh = (*size)[0], ow = (*size)[1];
    tensor* out = ctx.allocate_output(0, tensor_shape{n, oh, ow, c});
    if (!out || out->num_elements() == 0) return;
    CAFLOW_OP_REQUIRES(ctx, ih > 0 && iw > 0,
                       errors::invalid_argument("cannot resize an empty image of shape ",
                                                in.shape().to_string()));
    std::vector<linear_sample> ys(oh), xs(ow);
    const float sy = resize_scale(ih, oh, align_corners_), sx = resize_scale(iw, ow, align_corners_);
    for (int64_t y = 0; y < oh; ++y) ys[y] = linear_sample_of(y, sy, ih, half_pixel_);
    for (int64_t x = 0; x < ow; ++x) xs[x] = linear_sample_of(x, sx, iw, half_pixel_);
    const T* src = in.data<T>();
    float* dst = out->data<float>();
    parallel_for(ctx, n * oh, ow * c * 16, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / oh, y = row % oh;
        const T* top = src + (b * ih + ys[y].lower) * iw * c;
        const T* bottom = src + (b * ih + ys[y].upper) * iw * c;
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t k = 0; k < c; ++k) {
            const float tl = static_cast<float>(top[xs[x].lower * c + k]);
            const float tr = static_cast<float>(top[xs[x].upper * c + k]);
            const float bl = static_cast<float>(bottom[xs[x].lower * c + k]);
            const float br = static_cast<float>(bottom[xs[x].upper * c + k]);
            const float t = tl + (tr - tl) * xs[x].lerp, bo = bl + (br - bl) * xs[x].lerp;
            dst[(row * ow + x) * c + k] = t + (bo - t) * ys[y].lerp;
          }
      }
    });
  }
};

template <class T>
class resize_nearest_op final : public resize_base {
 public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_image(in, "images"));
    auto size = size_of(ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, size.get_status());
    const int64_t n = in.dim(0), ih = in.dim(1), iw = in.dim(2), c = in.dim(3);
    const int64_t oh = (*size)[0], ow = (*size)[1];
    tensor* out = ctx.allocate_output(0, tensor_shape{n, oh, ow, c});
    if (!out || out->num_elements() == 0) return;
    CAFLOW_OP_REQUIRES(ctx, ih > 0 && iw > 0,
                       errors::invalid_argument("cannot resize an empty image of shape ",
                                                in.shape().to_string()));
    const float sy = resize_scale(ih, oh, align_corners_), sx = resize_scale(iw, ow, align_corners_);
    std::vector<int64_t> ys(oh), xs(ow);
    for (int64_t y = 0; y < oh; ++y) ys[y] = nearest_sample_of(y, sy, ih, align_corners_, half_pixel_);
    for (int64_t x = 0; x < ow; ++x) xs[x] = nearest_sample_of(x, sx, iw, align_corners_, half_pixel_);
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    parallel_for(ctx, n * oh, ow * c * int64_t{sizeof(T)}, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / oh, y = row % oh;
        for (int64_t x = 0; x < ow; ++x)
          std::copy_n(src + ((b * ih + ys[y]) * iw + xs[x]) * c, c, dst + (row * ow + x) * c);
      }
    });
  }
};

template <class T>
class resize_bilinear_grad_op final : public resize_base {
 public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const tensor& g = ctx.input(0);
    const tensor& orig = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_image(g, "grads"));
    CAFLOW_OP_REQUIRES_OK(ctx, check_image(orig, "original_image"));
    CAFLOW_OP_REQUIRES(ctx, g.dim(0) == orig.dim(0) && g.dim(3) == orig.dim(3),
                       errors::invalid_argument("grads ", g.shape().to_string(),
                                                " and original_image ", orig.shape().to_string(),
                                                " must agree on batch and depth"));
    const int64_t n = orig.dim(0), ih = orig.dim(1), iw = orig.dim(2), c = orig.dim(3);
    const int64_t oh = g.dim(1), ow = g.dim(2);
    tensor* out = ctx.allocate_output(0, orig.shape());
    if (!out || out->num_elements() == 0) return;
    T* dx = out->data<T>();
    std::fill_n(dx, out->num_elements(), T{0});
    if (g.num_elements() == 0) return;
    const float sy = resize_scale(ih, oh, align_corners_), sx = resize_scale(iw, ow, align_corners_);
    std::vector<linear_sample> ys(oh), xs(ow);
    for (int64_t y = 0; y < oh; ++y) ys[y] = linear_sample_of(y, sy, ih, half_pixel_);
    for (int64_t x = 0; x < ow; ++x) xs[x] = linear_sample_of(x, sx, iw, half_pixel_);
    const float* gv = g.data<float>();
    parallel_for(ctx, n, oh * ow * c * 32, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        for (int64_t y = 0; y < oh; ++y) {
          T* top = dx + (b * ih + ys[y].lower) * iw * c;
          T* bottom = dx + (b * ih + ys[y].upper) * iw * c;
          const float ly = ys[y].lerp;
          for (int64_t x = 0; x < ow; ++x) {
            const float lx = xs[x].lerp;
            for (int64_t k = 0; k < c; ++k) {
              const float v = gv[((b * oh + y) * ow + x) * c + k];
              const float t = v * (1 - ly), bo = v * ly;
              top[xs[x].lower * c + k] += static_cast<T>(t * (1 - lx));
              top[xs[x].upper * c + k] += static_cast<T>(t * lx);
              bottom[xs[x].lower * c + k] += static_cast<T>(bo * (1 - lx));
              bottom[xs[x].upper * c + k] += static_cast<T>(bo * lx);
            }
          }
        }
    });
  }
};

template <class T>
class resize_nearest_grad_op final : public resize_base {
 public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const tensor& g = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_image(g, "grads"));
    auto size = size_of(ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, size.get_status());
    const int64_t n = g.dim(0), oh = g.dim(1), ow = g.dim(2), c = g.dim(3);
    const int64_t ih = (*size)[0], iw = (*size)[1];
    tensor* out = ctx.allocate_output(0, tensor_shape{n, ih, iw, c});
    if (!out || out->num_elements() == 0) return;
    T* dx = out->data<T>();
    std::fill_n(dx, out->num_elements(), T{0});
    if (g.num_elements() == 0) return;
    const float sy = resize_scale(ih, oh, align_corners_), sx = resize_scale(iw, ow, align_corners_);
    const T* gv = g.data<T>();
    parallel_for(ctx, n, oh * ow * c * 8, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        for (int64_t y = 0; y < oh; ++y) {
          const int64_t iy = nearest_sample_of(y, sy, ih, align_corners_, half_pixel_);
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t ix = nearest_sample_of(x, sx, iw, align_corners_, half_pixel_);
            T* d = dx + ((b * ih + iy) * iw + ix) * c;
            const T* s = gv + ((b * oh + y) * ow + x) * c;
            for (int64_t k = 0; k < c; ++k) d[k] += s[k];
          }
        }
    });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ResizeBilinear", device_cpu, "T", resize_bilinear_op, float, double,
                              int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("ResizeNearestNeighbor", device_cpu, "T", resize_nearest_op, float,
                              double, int32_t, int64_t, uint8_t);
CAFLOW_REGISTER_TYPED_KERNELS("ResizeBilinearGrad", device_cpu, "T", resize_bilinear_grad_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("ResizeNearestNeighborGrad", device_cpu, "T",
                              resize_nearest_grad_op, float, double, int32_t);

}  // namespace caflow
