// ResizeBilinear, ResizeNearestNeighbor and their gradients over NHWC images (sampling rules in
// graph/util/resize_rules.hpp). Each output pixel's sample positions are worked out once per
// row and column; channels are innermost. The gradients add into the input image, one batch
// entry per worker.
#include <vector>

#include "graph/util/resize_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

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

  // Where each of `out` output rows (or columns) samples an input of `in`: worked out once
  // per kernel call, never per pixel.
  std::vector<linear_sample> linear_samples(int64_t in, int64_t out) const {
    std::vector<linear_sample> v(static_cast<size_t>(out));
    const float scale = resize_scale(in, out, align_corners_);
    for (int64_t i = 0; i < out; ++i) v[i] = linear_sample_of(i, scale, in, half_pixel_);
    return v;
  }
  std::vector<int64_t> nearest_samples(int64_t in, int64_t out) const {
    std::vector<int64_t> v(static_cast<size_t>(out));
    const float scale = resize_scale(in, out, align_corners_);
    for (int64_t i = 0; i < out; ++i)
      v[i] = nearest_sample_of(i, scale, in, align_corners_, half_pixel_);
    return v;
  }

  // A forward resize's geometry and output.
  struct resize_job {
    int64_t n = 0, ih = 0, iw = 0, c = 0, oh = 0, ow = 0;
    tensor* out = nullptr;
  };
  // Checks images and size, allocates the [n, oh, ow, c] output; false when there is nothing
  // to compute (an empty output, or an error set on `ctx`).
  static bool start_forward(kernel_context& ctx, resize_job* job) {
    const tensor& in = ctx.input(0);
    auto size = size_of(ctx.input(1));
    status st = check_image(in, "images");
    if (st.ok()) st = size.get_status();
    if (!st.ok()) {
      ctx.set_status(std::move(st));
      return false;
    }
    *job = {in.dim(0), in.dim(1), in.dim(2), in.dim(3), (*size)[0], (*size)[1], nullptr};
    job->out = ctx.allocate_output(0, tensor_shape{job->n, job->oh, job->ow, job->c});
    if (!job->out || job->out->num_elements() == 0) return false;
    if (job->ih == 0 || job->iw == 0) {
      ctx.set_status(errors::invalid_argument("cannot resize an empty image of shape ",
                                              in.shape().to_string()));
      return false;
    }
    return true;
  }

  bool align_corners_ = false, half_pixel_ = false;
};

template <class T>
class resize_bilinear_op final : public resize_base {
 public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    resize_job j;
    if (!start_forward(ctx, &j)) return;
    const int64_t ih = j.ih, iw = j.iw, c = j.c, oh = j.oh, ow = j.ow, n = j.n;
    const std::vector<linear_sample> ys = linear_samples(ih, oh), xs = linear_samples(iw, ow);
    const T* src = ctx.input(0).data<T>();
    float* dst = j.out->data<float>();
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
    resize_job j;
    if (!start_forward(ctx, &j)) return;
    const int64_t ih = j.ih, iw = j.iw, c = j.c, oh = j.oh, ow = j.ow, n = j.n;
    const std::vector<int64_t> ys = nearest_samples(ih, oh), xs = nearest_samples(iw, ow);
    const T* src = ctx.input(0).data<T>();
    T* dst = j.out->data<T>();
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
    const std::vector<linear_sample> ys = linear_samples(ih, oh), xs = linear_samples(iw, ow);
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
    const std::vector<int64_t> ys = nearest_samples(ih, oh), xs = nearest_samples(iw, ow);
    const T* gv = g.data<T>();
    parallel_for(ctx, n, oh * ow * c * 8, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            T* d = dx + ((b * ih + ys[y]) * iw + xs[x]) * c;
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
