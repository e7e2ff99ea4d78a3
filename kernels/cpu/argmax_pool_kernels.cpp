// MaxPoolWithArgmax and its gradients over NHWC (windows from graph/util/argmax_pool_rules.hpp
// and pool_geometry_for). The gradients check every argmax against the input's size before
// using it: a corrupt index fails the step instead of writing out of bounds.
#include <limits>

#include "graph/util/argmax_pool_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class argmax_pool_base : public op_kernel {
 public:
  explicit argmax_pool_base(kernel_construction& c) : op_kernel(c) {
    auto p = parse_argmax_pool_params(c.def());
    CAFLOW_OP_REQUIRES_OK(c, p.get_status());
    params_ = *p;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("include_batch_in_index", &include_batch_));
  }

 protected:
  status_or<conv2d_geometry> geometry(const tensor& input) const {
    if (input.rank() != 4)
      return errors::invalid_argument("input must be 4-dimensional, got shape ",
                                      input.shape().to_string());
    return pool_geometry_for(params_, input.shape());
  }
  static status require(const tensor& t, const tensor_shape& expected, const char* what) {
    if (t.shape() != expected)
      return errors::invalid_argument(what, " has shape ", t.shape().to_string(),
                                      " but the input and window give ", expected.to_string());
    return {};
  }
  // The flat input offset argmax[o] names for output element o, checked.
  template <class I>
  status_or<int64_t> target(const conv2d_geometry& g, const I* argmax, int64_t o) const {
    const int64_t image = g.in_rows * g.in_cols * g.in_depth;
    const int64_t n = o / (g.out_rows * g.out_cols * g.out_depth);
    const int64_t a = static_cast<int64_t>(argmax[o]);
    const int64_t limit = include_batch_ ? g.batch * image : image;
    if (a < 0 || a >= limit)
      return errors::invalid_argument("argmax element ", o, " = ", a, " is not in [0, ", limit,
                                      ")");
    return include_batch_ ? a : n * image + a;
  }

  pool_params params_;
  bool include_batch_ = false;
};

template <class T, class I>
class max_pool_with_argmax_op final : public argmax_pool_base {
 public:
  using argmax_pool_base::argmax_pool_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto geo = geometry(input);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const conv2d_geometry& g = *geo;
    tensor* out = ctx.allocate_output(0, g.output_shape());
    tensor* arg = ctx.allocate_output(1, g.output_shape());
    if (!out || !arg || out->num_elements() == 0) return;
    const T* x = input.data<T>();
    T* y = out->data<T>();
    I* am = arg->data<I>();
    const int64_t c = g.in_depth;
    array_kernels::parallel_for(
        ctx, g.batch * g.out_rows, g.out_cols * g.filter_rows * g.filter_cols * c * 8,
        [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t n = r / g.out_rows, oh = r % g.out_rows;
            const int64_t h0 = oh * g.stride_rows - g.pad_top;
            for (int64_t ow = 0; ow < g.out_cols; ++ow) {
              const int64_t w0 = ow * g.stride_cols - g.pad_left;
              const int64_t o = (r * g.out_cols + ow) * c;
              for (int64_t k = 0; k < c; ++k) {
                T best = std::numeric_limits<T>::lowest();
                int64_t where = -1;
                for (int64_t h = std::max<int64_t>(h0, 0);
                     h < std::min(h0 + g.filter_rows, g.in_rows); ++h)
                  for (int64_t w = std::max<int64_t>(w0, 0);
                       w < std::min(w0 + g.filter_cols, g.in_cols); ++w) {
                    const int64_t i = ((n * g.in_rows + h) * g.in_cols + w) * c + k;
                    if (where < 0 || x[i] > best) {
                      best = x[i];
                      where = i;
                    }
                  }
                y[o + k] = best;
                const int64_t image = g.in_rows * g.in_cols * c;
                am[o + k] = static_cast<I>(include_batch_ ? where : where - n * image);
              }
            }
          }
        });
  }
};

// grad_grad false: MaxPoolGradWithArgmax; true: MaxPoolGradGradWithArgmax.
template <class T, class I, bool grad_grad>
class grad_with_argmax_op final : public argmax_pool_base {
 public:
  using argmax_pool_base::argmax_pool_base;

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& grad = ctx.input(1);
    const tensor& argmax = ctx.input(2);
    auto geo = geometry(input);
    CAFLOW_OP_REQUIRES_OK(ctx, geo.get_status());
    const conv2d_geometry& g = *geo;
    CAFLOW_OP_REQUIRES_OK(
        ctx, require(grad, grad_grad ? input.shape() : g.output_shape(), "grad"));
    CAFLOW_OP_REQUIRES_OK(ctx, require(argmax, g.output_shape(), "argmax"));
    tensor* out = ctx.allocate_output(0, grad_grad ? g.output_shape() : input.shape());
    if (!out) return;
    T* dst = out->data<T>();
    std::fill_n(dst, out->num_elements(), T{0});
    const T* gv = grad.data<T>();
    const I* am = argmax.data<I>();
    for (int64_t o = 0; o < argmax.num_elements(); ++o) {
      auto i = target<I>(g, am, o);
      CAFLOW_OP_REQUIRES_OK(ctx, i.get_status());
      if constexpr (grad_grad) dst[o] = gv[*i];
      else dst[*i] += gv[o];
    }
  }
};

template <class T, class I>
using max_pool_grad_with_argmax_op = grad_with_argmax_op<T, I, false>;
template <class T, class I>
using max_pool_grad_grad_with_argmax_op = grad_with_argmax_op<T, I, true>;

using value_types = type_list<float, double>;
using index_types = type_list<int32_t, int64_t>;

}  // namespace

static const typed_kernel_registrar2<max_pool_with_argmax_op, value_types, index_types>
    max_pool_with_argmax_kernels("MaxPoolWithArgmax", device_cpu, "T", "Targmax");
static const typed_kernel_registrar2<max_pool_grad_with_argmax_op, value_types, index_types>
    max_pool_grad_with_argmax_kernels("MaxPoolGradWithArgmax", device_cpu, "T", "Targmax");
static const typed_kernel_registrar2<max_pool_grad_grad_with_argmax_op, value_types, index_types>
    max_pool_grad_grad_with_argmax_kernels("MaxPoolGradGradWithArgmax", device_cpu, "T",
                                           "Targmax");

}  // namespace caflow
