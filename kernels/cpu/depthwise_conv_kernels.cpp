// DepthwiseConv2dNative and its two backprops on the CPU, direct loops (geometry in
// graph/util/depthwise_geometry.hpp). The filter [rows, cols, depth, multiplier] stores each
// tap's weights in output-channel order (c * multiplier + m), so every tap is one
// multiply-add of a contiguous run. Each kernel writes disjoint parts of its output in
// parallel: the forward pass per output pixel, the input gradient per input pixel (gathering
// from the output positions that read it), the filter gradient per tap.
#include <algorithm>
#include <vector>

#include "graph/util/depthwise_geometry.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/cpu/depthwise_forward.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {

// acc[c * mult + m] += x[c] * f[c * mult + m] over one filter tap. Written so the compiler
// vectorizes it over channels: the former acc[j] += x[j / mult] * f[j] divided per element and
// ran scalar, 73% of PoseNet's time (MobileNet v1: 13 depthwise layers). Each sum keeps its
// order over the taps, so results are unchanged bit for bit.
template <class T>
inline void accumulate_tap(T* __restrict acc, const T* __restrict x, const T* __restrict f,
                           int64_t depth, int64_t mult) {
  if (mult == 1) {
    for (int64_t c = 0; c < depth; ++c) acc[c] += x[c] * f[c];
    return;
  }
  for (int64_t c = 0; c < depth; ++c) {
    const T v = x[c];
    for (int64_t m = 0; m < mult; ++m) acc[c * mult + m] += v * f[c * mult + m];
  }
}

template <class T>
void depthwise_forward(const kernel_context& ctx, const depthwise_geometry& g, const tensor& input,
                       const tensor& filter, tensor& out, const channel_epilogue<T>* epilogue) {
  if (out.num_elements() == 0) return;
  const T* x = input.data<T>();
  const T* f = filter.data<T>();
  T* y = out.data<T>();
  const int64_t od = g.out_depth(), mult = g.multiplier;
  const int64_t taps = g.filter_rows * g.filter_cols;
  array_kernels::parallel_for(
      ctx, g.batch * g.out_rows * g.out_cols, taps * od * int64_t{sizeof(T)},
      [&](int64_t begin, int64_t end) {
        for (int64_t pix = begin; pix < end; ++pix) {
          const int64_t ow = pix % g.out_cols, oh = pix / g.out_cols % g.out_rows;
          const int64_t n = pix / (g.out_cols * g.out_rows);
          T* acc = y + pix * od;
          std::fill_n(acc, od, T{0});
          for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
            const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
            if (ih < 0 || ih >= g.in_rows) continue;
            for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
              const int64_t iw = ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
              if (iw < 0 || iw >= g.in_cols) continue;
              const T* xp = x + ((n * g.in_rows + ih) * g.in_cols + iw) * g.depth;
              const T* fp = f + (kh * g.filter_cols + kw) * od;
              accumulate_tap(acc, xp, fp, g.depth, mult);
            }
          }
          if (epilogue) epilogue->apply_rows(acc, 1);
        }
      });
}

template void depthwise_forward<float>(const kernel_context&, const depthwise_geometry&,
                                       const tensor&, const tensor&, tensor&,
                                       const channel_epilogue<float>*);
template void depthwise_forward<double>(const kernel_context&, const depthwise_geometry&,
                                        const tensor&, const tensor&, tensor&,
                                        const channel_epilogue<double>*);

namespace {

using array_kernels::parallel_for;

class depthwise_base : public op_kernel {
 public:
  explicit depthwise_base(kernel_construction& c) : op_kernel(c) {
    auto p = parse_conv2d_params(c.def());
    CAFLOW_OP_REQUIRES_OK(c, p.get_status());
    CAFLOW_OP_REQUIRES(c, !p->nchw,
                       errors::unimplemented("the CPU kernel supports only data_format NHWC, got "
                                             "NCHW"));
    params_ = *p;
  }

 protected:
  // Checks ranks and resolves the geometry of `input` convolved with `filter`.
  status_or<depthwise_geometry> geometry(const tensor_shape& input,
                                         const tensor_shape& filter) const {
    if (input.rank() != 4)
      return errors::invalid_argument("input must be 4-dimensional, got shape ",
                                      input.to_string());
    if (filter.rank() != 4)
      return errors::invalid_argument("filter must be 4-dimensional, got shape ",
                                      filter.to_string());
    return depthwise_geometry_for(params_, input, filter);
  }

  static status check_out_backprop(const depthwise_geometry& g, const tensor& out_backprop) {
    if (out_backprop.shape() != g.output_shape())
      return errors::invalid_argument("out_backprop has shape ", out_backprop.shape().to_string(),
                                      " but the input and filter give ",
                                      g.output_shape().to_string());
    return {};
  }

  conv2d_params params_;
};

template <class T>
class depthwise_op final : public depthwise_base {
 public:
  using depthwise_base::depthwise_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& filter = ctx.input(1);
    auto geo = geometry(input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    tensor* out = ctx.allocate_output(0, geo->output_shape());
    if (!out) return;
    depthwise_forward<T>(ctx, *geo, input, filter, *out, nullptr);
  }
};

// The output position along one dimension that reads input index `i` through tap `k`, or -1.
inline int64_t reader(int64_t i, int64_t k, int64_t pad, int64_t dilation, int64_t stride,
                      int64_t out) {
  const int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t o = t / stride;
  return o < out ? o : -1;
}

template <class T>
class depthwise_backprop_input_op final : public depthwise_base {
 public:
  using depthwise_base::depthwise_base;

  void compute(kernel_context& ctx) override {
    auto shape = image_shape_from_sizes(ctx.input(0), "input_sizes");
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    const tensor& filter = ctx.input(1);
    const tensor& dy_t = ctx.input(2);
    auto geo = geometry(*shape, filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const depthwise_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, check_out_backprop(g, dy_t));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    const T* f = filter.data<T>();
    const T* dy = dy_t.data<T>();
    T* dx = out->data<T>();
    const int64_t od = g.out_depth(), mult = g.multiplier;
    parallel_for(ctx, g.batch * g.in_rows * g.in_cols,
                 g.filter_rows * g.filter_cols * od * int64_t{sizeof(T)},
                 [&](int64_t begin, int64_t end) {
                   for (int64_t pix = begin; pix < end; ++pix) {
                     const int64_t iw = pix % g.in_cols, ih = pix / g.in_cols % g.in_rows;
                     const int64_t n = pix / (g.in_cols * g.in_rows);
                     T* acc = dx + pix * g.depth;
                     std::fill_n(acc, g.depth, T{0});
                     for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
                       const int64_t oh = reader(ih, kh, g.pad_top, g.dilation_rows,
                                                 g.stride_rows, g.out_rows);
                       if (oh < 0) continue;
                       for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
                         const int64_t ow = reader(iw, kw, g.pad_left, g.dilation_cols,
                                                   g.stride_cols, g.out_cols);
                         if (ow < 0) continue;
                         const T* gp = dy + ((n * g.out_rows + oh) * g.out_cols + ow) * od;
                         const T* fp = f + (kh * g.filter_cols + kw) * od;
                         for (int64_t j = 0; j < od; ++j) acc[j / mult] += gp[j] * fp[j];
                       }
                     }
                   }
                 });
  }
};

template <class T>
class depthwise_backprop_filter_op final : public depthwise_base {
 public:
  using depthwise_base::depthwise_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto shape = image_shape_from_sizes(ctx.input(1), "filter_sizes");
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    const tensor& dy_t = ctx.input(2);
    auto geo = geometry(input.shape(), *shape);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const depthwise_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, check_out_backprop(g, dy_t));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    const T* x = input.data<T>();
    const T* dy = dy_t.data<T>();
    T* df = out->data<T>();
    const int64_t od = g.out_depth(), mult = g.multiplier;
    parallel_for(ctx, g.filter_rows * g.filter_cols,
                 g.batch * g.out_rows * g.out_cols * od * int64_t{sizeof(T)},
                 [&](int64_t begin, int64_t end) {
                   for (int64_t tap = begin; tap < end; ++tap) {
                     const int64_t kh = tap / g.filter_cols, kw = tap % g.filter_cols;
                     T* acc = df + tap * od;
                     std::fill_n(acc, od, T{0});
                     for (int64_t n = 0; n < g.batch; ++n)
                       for (int64_t oh = 0; oh < g.out_rows; ++oh) {
                         const int64_t ih =
                             oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
                         if (ih < 0 || ih >= g.in_rows) continue;
                         for (int64_t ow = 0; ow < g.out_cols; ++ow) {
                           const int64_t iw =
                               ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
                           if (iw < 0 || iw >= g.in_cols) continue;
                           const T* xp = x + ((n * g.in_rows + ih) * g.in_cols + iw) * g.depth;
                           const T* gp = dy + ((n * g.out_rows + oh) * g.out_cols + ow) * od;
                           for (int64_t j = 0; j < od; ++j) acc[j] += xp[j / mult] * gp[j];
                         }
                       }
                   }
                 });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("DepthwiseConv2dNative", device_cpu, "T", depthwise_op, float,
                              double);
CAFLOW_REGISTER_TYPED_KERNELS("DepthwiseConv2dNativeBackpropInput", device_cpu, "T",
                              depthwise_backprop_input_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("DepthwiseConv2dNativeBackpropFilter", device_cpu, "T",
                              depthwise_backprop_filter_op, float, double);

}  // namespace caflow
