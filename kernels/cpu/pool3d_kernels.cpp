// MaxPool3D, AvgPool3D and their gradients over NDHWC volumes (geometry in
// graph/util/pool3d_geometry.hpp). Every kernel walks the output positions with the channels
// innermost, so each window step is a contiguous run of `depth` elements. The gradients write
// into the input's shape and run one batch entry per worker, so no two workers touch the same
// element.
//
// As TensorFlow's CPU kernels do, MaxPool3DGrad gives a window's gradient to every element
// equal to the window's maximum (orig_output), and MaxPool3DGradGrad, its adjoint, sums `grad`
// over those elements.
#include <algorithm>
#include <limits>

#include "graph/util/pool3d_geometry.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for;

// The input positions of one window along the three spatial dims, clipped to the input.
struct window_span {
  std::array<int64_t, 3> begin{}, end{};
  int64_t count() const {
    return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
  }
};

window_span span_of(const pool3d_geometry& g, const std::array<int64_t, 3>& o) {
  window_span w;
  for (int i = 0; i < 3; ++i) {
    const int64_t start = o[i] * g.stride[i] - g.pad_before[i];
    w.begin[i] = std::max<int64_t>(0, start);
    w.end[i] = std::min(g.in[i], start + g.window[i]);
  }
  return w;
}

// Calls fn(n, output position index, window, output element offset) for every output
// position of batch entry n.
template <class F>
void for_windows(const pool3d_geometry& g, int64_t n, F&& fn) {
  std::array<int64_t, 3> o{};
  int64_t pos = n * g.out[0] * g.out[1] * g.out[2];
  for (o[0] = 0; o[0] < g.out[0]; ++o[0])
    for (o[1] = 0; o[1] < g.out[1]; ++o[1])
      for (o[2] = 0; o[2] < g.out[2]; ++o[2], ++pos) fn(span_of(g, o), pos * g.depth);
}

// Calls fn(input element offset) for every input position of window `w` in batch entry n.
template <class F>
void for_inputs(const pool3d_geometry& g, int64_t n, const window_span& w, F&& fn) {
  for (int64_t d = w.begin[0]; d < w.end[0]; ++d)
    for (int64_t h = w.begin[1]; h < w.end[1]; ++h)
      for (int64_t c = w.begin[2]; c < w.end[2]; ++c)
        fn((((n * g.in[0] + d) * g.in[1] + h) * g.in[2] + c) * g.depth);
}

class pool3d_base : public op_kernel {
 public:
  explicit pool3d_base(kernel_construction& c) : op_kernel(c) {
    auto p = parse_pool3d_params(c.def());
    CAFLOW_OP_REQUIRES_OK(c, p.get_status());
    CAFLOW_OP_REQUIRES(c, !p->channels_first,
                       errors::unimplemented("the CPU kernel supports only data_format NDHWC, "
                                             "got NCDHW"));
    params_ = *p;
  }

 protected:
  status_or<pool3d_geometry> geometry(const tensor_shape& input) const {
    return pool3d_geometry_for(params_, input);
  }
  static status require_shape(const tensor& t, const tensor_shape& expected, const char* what) {
    if (t.shape() != expected)
      return errors::invalid_argument(what, " has shape ", t.shape().to_string(),
                                      " but the input and window give ", expected.to_string());
    return {};
  }
  // Runs fn(n) for each batch entry, in parallel.
  template <class F>
  static void per_batch(const kernel_context& ctx, const pool3d_geometry& g, F&& fn) {
    parallel_for(ctx, g.batch,
                 g.out[0] * g.out[1] * g.out[2] * g.window[0] * g.window[1] * g.window[2] *
                     g.depth * 8,
                 [&](int64_t begin, int64_t end) {
                   for (int64_t n = begin; n < end; ++n) fn(n);
                 });
  }

  pool3d_params params_;
};

template <class T, bool is_max>
class pool3d_op final : public pool3d_base {
 public:
  using pool3d_base::pool3d_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto geo = geometry(input.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const pool3d_geometry& g = *geo;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    if (!out || out->num_elements() == 0) return;
    const T* x = input.data<T>();
    T* y = out->data<T>();
    const int64_t depth = g.depth;
    per_batch(ctx, g, [&](int64_t n) {
      for_windows(g, n, [&](const window_span& w, int64_t o) {
        T* acc = y + o;
        std::fill_n(acc, depth, is_max ? std::numeric_limits<T>::lowest() : T{0});
        for_inputs(g, n, w, [&](int64_t i) {
          for (int64_t c = 0; c < depth; ++c) {
            if constexpr (is_max) acc[c] = std::max(acc[c], x[i + c]);
            else acc[c] += x[i + c];
          }
        });
        if constexpr (!is_max) {
          const T k = w.count() > 0 ? T{1} / static_cast<T>(w.count()) : T{0};
          for (int64_t c = 0; c < depth; ++c) acc[c] *= k;
        }
      });
    });
  }
};

template <class T>
using max_pool3d_op = pool3d_op<T, true>;
template <class T>
using avg_pool3d_op = pool3d_op<T, false>;

// MaxPool3DGrad (grad_grad false: scatter grad, shaped like the output, onto the maxima) and
// MaxPool3DGradGrad (true: gather grad, shaped like the input, from the maxima).
template <class T, bool grad_grad>
class max_pool3d_grad_base final : public pool3d_base {
 public:
  using pool3d_base::pool3d_base;

  void compute(kernel_context& ctx) override {
    const tensor& x_t = ctx.input(0);
    const tensor& y_t = ctx.input(1);
    const tensor& g_t = ctx.input(2);
    auto geo = geometry(x_t.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const pool3d_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, require_shape(y_t, g.output_shape(), "orig_output"));
    CAFLOW_OP_REQUIRES_OK(
        ctx, require_shape(g_t, grad_grad ? g.input_shape() : g.output_shape(), "grad"));
    tensor* out = ctx.allocate_output(0, grad_grad ? g.output_shape() : g.input_shape());
    if (!out || out->num_elements() == 0) return;
    const T *x = x_t.data<T>(), *y = y_t.data<T>(), *grad = g_t.data<T>();
    T* r = out->data<T>();
    std::fill_n(r, out->num_elements(), T{0});
    const int64_t depth = g.depth;
    per_batch(ctx, g, [&](int64_t n) {
      for_windows(g, n, [&](const window_span& w, int64_t o) {
        for_inputs(g, n, w, [&](int64_t i) {
          for (int64_t c = 0; c < depth; ++c) {
            if (x[i + c] != y[o + c]) continue;
            if constexpr (grad_grad) r[o + c] += grad[i + c];
            else r[i + c] += grad[o + c];
          }
        });
      });
    });
  }
};

template <class T>
using max_pool3d_grad_op = max_pool3d_grad_base<T, false>;
template <class T>
using max_pool3d_grad_grad_op = max_pool3d_grad_base<T, true>;

template <class T>
class avg_pool3d_grad_op final : public pool3d_base {
 public:
  using pool3d_base::pool3d_base;

  void compute(kernel_context& ctx) override {
    const tensor& sizes = ctx.input(0);
    const tensor& g_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, sizes.rank() == 1 && sizes.dim(0) == 5,
                       errors::invalid_argument("orig_input_shape must hold 5 sizes, got shape ",
                                                sizes.shape().to_string()));
    std::vector<int64_t> dims(sizes.data<int32_t>(), sizes.data<int32_t>() + 5);
    auto shape = tensor_shape::make(dims);
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    auto geo = geometry(*shape);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const pool3d_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, require_shape(g_t, g.output_shape(), "grad"));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    const T* grad = g_t.data<T>();
    T* dx = out->data<T>();
    std::fill_n(dx, out->num_elements(), T{0});
    const int64_t depth = g.depth;
    per_batch(ctx, g, [&](int64_t n) {
      for_windows(g, n, [&](const window_span& w, int64_t o) {
        if (w.count() == 0) return;
        const T k = T{1} / static_cast<T>(w.count());
        for_inputs(g, n, w, [&](int64_t i) {
          for (int64_t c = 0; c < depth; ++c) dx[i + c] += grad[o + c] * k;
        });
      });
    });
  }
};

template <class T>
kernel_def max_pool3d_grad_kernel() {
  return kernel_def_builder("MaxPool3DGrad")
      .device(device_cpu)
      .type_constraint("T", dtype_v<T>)
      .type_constraint("TInput", dtype_v<T>)
      .build([](kernel_construction& c) -> std::unique_ptr<op_kernel> {
        return std::make_unique<max_pool3d_grad_op<T>>(c);
      });
}

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("MaxPool3D", device_cpu, "T", max_pool3d_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AvgPool3D", device_cpu, "T", avg_pool3d_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AvgPool3DGrad", device_cpu, "T", avg_pool3d_grad_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("MaxPool3DGradGrad", device_cpu, "T", max_pool3d_grad_grad_op,
                              float, double);
static const kernel_registrar max_pool3d_grad_f32(max_pool3d_grad_kernel<float>());
static const kernel_registrar max_pool3d_grad_f64(max_pool3d_grad_kernel<double>());

}  // namespace caflow
