// Conv3D and its two backprops on the CPU, direct loops over taps (geometry in
// graph/util/conv3d_geometry.hpp). The filter [kd, kh, kw, in, out] holds one [in, out] matrix
// per tap. Each kernel writes disjoint parts of its output in parallel: the forward pass per
// output position, the input gradient per input position (gathering from the output positions
// that read it), the filter gradient per tap.
#include <algorithm>
#include <array>

#include "graph/util/array_index_util.hpp"
#include "graph/util/conv3d_geometry.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_for;
using triple = std::array<int64_t, 3>;

class conv3d_base : public op_kernel {
 public:
  explicit conv3d_base(kernel_construction& c) : op_kernel(c) {
    auto p = parse_conv3d_params(c.def());
    CAFLOW_OP_REQUIRES_OK(c, p.get_status());
    CAFLOW_OP_REQUIRES(c, !p->channels_first,
                       errors::unimplemented("the CPU kernel supports only data_format NDHWC, "
                                             "got NCDHW"));
    params_ = *p;
  }

 protected:
  status_or<conv3d_geometry> geometry(const tensor_shape& input, const tensor_shape& filter) const {
    if (input.rank() != 5)
      return errors::invalid_argument("input must be 5-dimensional, got shape ", input.to_string());
    if (filter.rank() != 5)
      return errors::invalid_argument("filter must be 5-dimensional, got shape ",
                                      filter.to_string());
    return conv3d_geometry_for(params_, input, filter);
  }
  static status check_out_backprop(const conv3d_geometry& g, const tensor& dy) {
    if (dy.shape() != g.output_shape())
      return errors::invalid_argument("out_backprop has shape ", dy.shape().to_string(),
                                      " but the input and filter give ",
                                      g.output_shape().to_string());
    return {};
  }
  static status_or<tensor_shape> sizes(const tensor& t, const char* what) {
    if (t.rank() != 1 || t.num_elements() != 5)
      return errors::invalid_argument(what, " must be a vector of 5 sizes, got shape ",
                                      t.shape().to_string());
    return tensor_shape::make(index_values(t));
  }

  conv3d_params params_;
};

// Input position of output position `o` through tap `k`, per dimension; false when outside.
inline bool tap_input(const conv3d_geometry& g, const triple& o, const triple& k, triple* i) {
  for (int d = 0; d < 3; ++d) {
    (*i)[d] = o[d] * g.stride[d] - g.pad_before[d] + k[d] * g.dilation[d];
    if ((*i)[d] < 0 || (*i)[d] >= g.in[d]) return false;
  }
  return true;
}

inline int64_t in_offset(const conv3d_geometry& g, int64_t n, const triple& i) {
  return (((n * g.in[0] + i[0]) * g.in[1] + i[1]) * g.in[2] + i[2]) * g.in_depth;
}
inline int64_t out_offset(const conv3d_geometry& g, int64_t n, const triple& o) {
  return (((n * g.out[0] + o[0]) * g.out[1] + o[1]) * g.out[2] + o[2]) * g.out_depth;
}
inline int64_t taps(const conv3d_geometry& g) { return g.filter[0] * g.filter[1] * g.filter[2]; }
inline triple tap_of(const conv3d_geometry& g, int64_t t) {
  return {t / (g.filter[1] * g.filter[2]), t / g.filter[2] % g.filter[1], t % g.filter[2]};
}
inline triple position_of(const std::array<int64_t, 3>& dims, int64_t p) {
  return {p / (dims[1] * dims[2]) % dims[0], p / dims[2] % dims[1], p % dims[2]};
}

template <class T>
class conv3d_op final : public conv3d_base {
 public:
  using conv3d_base::conv3d_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& filter = ctx.input(1);
    auto geo = geometry(input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const conv3d_geometry& g = *geo;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    if (!out || out->num_elements() == 0) return;
    const T *x = input.data<T>(), *w = filter.data<T>();
    T* y = out->data<T>();
    const int64_t ci = g.in_depth, co = g.out_depth, per_image = g.out[0] * g.out[1] * g.out[2];
    parallel_for(ctx, g.batch * per_image, taps(g) * ci * co * int64_t{sizeof(T)},
                 [&](int64_t begin, int64_t end) {
                   for (int64_t p = begin; p < end; ++p) {
                     const int64_t n = p / per_image;
                     const triple o = position_of(g.out, p);
                     T* acc = y + out_offset(g, n, o);
                     std::fill_n(acc, co, T{0});
                     for (int64_t t = 0; t < taps(g); ++t) {
                       triple i;
                       if (!tap_input(g, o, tap_of(g, t), &i)) continue;
                       const T* xp = x + in_offset(g, n, i);
                       const T* wt = w + t * ci * co;
                       for (int64_t a = 0; a < ci; ++a)
                         for (int64_t b = 0; b < co; ++b) acc[b] += xp[a] * wt[a * co + b];
                     }
                   }
                 });
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
class conv3d_backprop_input_op final : public conv3d_base {
 public:
  using conv3d_base::conv3d_base;

  void compute(kernel_context& ctx) override {
    auto shape = sizes(ctx.input(0), "input_sizes");
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    const tensor& filter = ctx.input(1);
    const tensor& dy_t = ctx.input(2);
    auto geo = geometry(*shape, filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const conv3d_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, check_out_backprop(g, dy_t));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    const T *w = filter.data<T>(), *dy = dy_t.data<T>();
    T* dx = out->data<T>();
    const int64_t ci = g.in_depth, co = g.out_depth, per_image = g.in[0] * g.in[1] * g.in[2];
    parallel_for(ctx, g.batch * per_image, taps(g) * ci * co * int64_t{sizeof(T)},
                 [&](int64_t begin, int64_t end) {
                   for (int64_t p = begin; p < end; ++p) {
                     const int64_t n = p / per_image;
                     const triple i = position_of(g.in, p);
                     T* acc = dx + in_offset(g, n, i);
                     std::fill_n(acc, ci, T{0});
                     for (int64_t t = 0; t < taps(g); ++t) {
                       const triple k = tap_of(g, t);
                       triple o;
                       bool inside = true;
                       for (int d = 0; d < 3 && inside; ++d) {
                         o[d] = reader(i[d], k[d], g.pad_before[d], g.dilation[d], g.stride[d],
                                       g.out[d]);
                         inside = o[d] >= 0;
                       }
                       if (!inside) continue;
                       const T* gp = dy + out_offset(g, n, o);
                       const T* wt = w + t * ci * co;
                       for (int64_t a = 0; a < ci; ++a) {
                         T sum = 0;
                         for (int64_t b = 0; b < co; ++b) sum += gp[b] * wt[a * co + b];
                         acc[a] += sum;
                       }
                     }
                   }
                 });
  }
};

template <class T>
class conv3d_backprop_filter_op final : public conv3d_base {
 public:
  using conv3d_base::conv3d_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto shape = sizes(ctx.input(1), "filter_sizes");
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    const tensor& dy_t = ctx.input(2);
    auto geo = geometry(input.shape(), *shape);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const conv3d_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(ctx, check_out_backprop(g, dy_t));
    tensor* out = ctx.allocate_output(0, *shape);
    if (!out || out->num_elements() == 0) return;
    const T *x = input.data<T>(), *dy = dy_t.data<T>();
    T* dw = out->data<T>();
    const int64_t ci = g.in_depth, co = g.out_depth, per_image = g.out[0] * g.out[1] * g.out[2];
    parallel_for(ctx, taps(g), g.batch * per_image * ci * co * int64_t{sizeof(T)},
                 [&](int64_t begin, int64_t end) {
                   for (int64_t t = begin; t < end; ++t) {
                     const triple k = tap_of(g, t);
                     T* acc = dw + t * ci * co;
                     std::fill_n(acc, ci * co, T{0});
                     for (int64_t p = 0; p < g.batch * per_image; ++p) {
                       const int64_t n = p / per_image;
                       const triple o = position_of(g.out, p);
                       triple i;
                       if (!tap_input(g, o, k, &i)) continue;
                       const T* xp = x + in_offset(g, n, i);
                       const T* gp = dy + out_offset(g, n, o);
                       for (int64_t a = 0; a < ci; ++a)
                         for (int64_t b = 0; b < co; ++b) acc[a * co + b] += xp[a] * gp[b];
                     }
                   }
                 });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Conv3D", device_cpu, "T", conv3d_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Conv3DBackpropInputV2", device_cpu, "T", conv3d_backprop_input_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Conv3DBackpropFilterV2", device_cpu, "T",
                              conv3d_backprop_filter_op, float, double);

}  // namespace caflow
