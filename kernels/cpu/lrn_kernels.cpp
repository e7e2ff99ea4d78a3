// LRN and LRNGrad on the CPU: each row of channels (the last dimension of NHWC) is normalized
// by a sliding window of squares; rows run in parallel.
#include <cmath>
#include <vector>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class lrn_base : public op_kernel {
 public:
  explicit lrn_base(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("depth_radius", &radius_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("bias", &bias_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("alpha", &alpha_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("beta", &beta_));
    CAFLOW_OP_REQUIRES(c, radius_ >= 0,
                       errors::invalid_argument("depth_radius must be non-negative, got ",
                                                radius_));
  }

 protected:
  static status check_4d(const tensor& t, const char* what) {
    if (t.rank() != 4)
      return errors::invalid_argument(what, " must be 4-dimensional, got shape ",
                                      t.shape().to_string());
    return {};
  }
  // norm[d] = bias + alpha * sum of x[k]^2 over the window of d.
  template <class T>
  void norms(const T* x, int64_t depth, double* norm) const {
    for (int64_t d = 0; d < depth; ++d) {
      double sum = 0;
      const int64_t lo = std::max<int64_t>(0, d - radius_);
      const int64_t hi = std::min<int64_t>(depth, d + radius_ + 1);
      for (int64_t k = lo; k < hi; ++k) sum += double{x[k]} * x[k];
      norm[d] = bias_ + alpha_ * sum;
    }
  }

  int64_t radius_ = 5;
  float bias_ = 1, alpha_ = 1, beta_ = 0.5f;
};

template <class T>
class lrn_op final : public lrn_base {
 public:
  using lrn_base::lrn_base;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_4d(x, "input"));
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out || out->num_elements() == 0) return;
    const int64_t depth = x.dim(3), rows = x.num_elements() / depth;
    const T* in = x.data<T>();
    T* y = out->data<T>();
    array_kernels::parallel_for(ctx, rows, depth * 16, [&](int64_t begin, int64_t end) {
      std::vector<double> norm(depth);
      for (int64_t r = begin; r < end; ++r) {
        norms(in + r * depth, depth, norm.data());
        for (int64_t d = 0; d < depth; ++d)
          y[r * depth + d] = static_cast<T>(in[r * depth + d] * std::pow(norm[d], -beta_));
      }
    });
  }
};

// dx[j] = dy[j] * norm[j]^-beta - 2 alpha beta x[j] * sum of dy[i] y[i] / norm[i] over the i
// whose window holds j (the windows are symmetric: those in j's own window).
template <class T>
class lrn_grad_op final : public lrn_base {
 public:
  using lrn_base::lrn_base;

  void compute(kernel_context& ctx) override {
    const tensor& dy = ctx.input(0);
    const tensor& x = ctx.input(1);
    const tensor& y = ctx.input(2);
    CAFLOW_OP_REQUIRES_OK(ctx, check_4d(dy, "input_grads"));
    CAFLOW_OP_REQUIRES(
        ctx, dy.shape() == x.shape() && dy.shape() == y.shape(),
        errors::invalid_argument("input_grads, input_image and output_image must have one shape, "
                                 "got ",
                                 dy.shape().to_string(), ", ", x.shape().to_string(), " and ",
                                 y.shape().to_string()));
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out || out->num_elements() == 0) return;
    const int64_t depth = x.dim(3), rows = x.num_elements() / depth;
    const T *g = dy.data<T>(), *in = x.data<T>(), *act = y.data<T>();
    T* dx = out->data<T>();
    const double ab2 = -2.0 * alpha_ * beta_;
    array_kernels::parallel_for(ctx, rows, depth * 32, [&](int64_t begin, int64_t end) {
      std::vector<double> norm(depth), acc(depth);
      for (int64_t r = begin; r < end; ++r) {
        const int64_t o = r * depth;
        norms(in + o, depth, norm.data());
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t i = 0; i < depth; ++i) {
          acc[i] += g[o + i] * std::pow(norm[i], -beta_);
          const double coef = ab2 * g[o + i] * act[o + i] / norm[i];
          const int64_t lo = std::max<int64_t>(0, i - radius_);
          const int64_t hi = std::min<int64_t>(depth, i + radius_ + 1);
          for (int64_t j = lo; j < hi; ++j) acc[j] += coef * in[o + j];
        }
        for (int64_t j = 0; j < depth; ++j) dx[o + j] = static_cast<T>(acc[j]);
      }
    });
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("LRN", device_cpu, "T", lrn_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("LRNGrad", device_cpu, "T", lrn_grad_op, float, double);

}  // namespace caflow
