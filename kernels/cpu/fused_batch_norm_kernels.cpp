// FusedBatchNormV3 and FusedBatchNormGradV3 (and the older versions: the same kernels without
// reserve_space_3 and exponential_avg_factor) on the CPU, channels last: x is seen as
// [rows, channels]. Per-channel sums are accumulated in double over all rows, then one more
// pass writes the output.
#include <cmath>
#include <vector>

#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Reads data_format, epsilon and is_training; NCHW/NCDHW are refused as UNIMPLEMENTED.
class batch_norm_base : public op_kernel {
 public:
  explicit batch_norm_base(kernel_construction& c) : op_kernel(c) {
    std::string format;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("data_format", &format));
    CAFLOW_OP_REQUIRES(c, format == "NHWC" || format == "NDHWC",
                       format == "NCHW" || format == "NCDHW"
                           ? errors::unimplemented("the CPU kernel supports only channels-last "
                                                   "data_format (NHWC, NDHWC), got ", format)
                           : errors::invalid_argument("invalid data_format '", format, "'"));
    rank_ = format == "NHWC" ? 4 : 5;
    format_ = format;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("epsilon", &epsilon_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("is_training", &training_));
  }

 protected:
  status check_x(const tensor& x, const char* what) const {
    if (x.rank() != rank_)
      return errors::invalid_argument(what, " must be ", rank_, "-dimensional for data_format ",
                                      format_, ", got shape ", x.shape().to_string());
    return {};
  }
  static status check_vector(const tensor& v, const char* what, int64_t channels) {
    if (v.rank() != 1 || v.dim(0) != channels)
      return errors::invalid_argument(what, " must be a vector of ", channels,
                                      " entries (one per channel), got shape ",
                                      v.shape().to_string());
    return {};
  }

  int rank_ = 4;
  std::string format_;
  float epsilon_ = 0.0001f;
  bool training_ = true;
};

template <class T>
class fused_batch_norm_op final : public batch_norm_base {
 public:
  explicit fused_batch_norm_op(kernel_construction& c) : batch_norm_base(c) {
    // FusedBatchNorm and FusedBatchNormV2 have neither the factor nor reserve_space_3.
    if (c.def().attrs.count("exponential_avg_factor"))
      CAFLOW_OP_REQUIRES_OK(c, c.get_attr("exponential_avg_factor", &factor_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_x(x, "x"));
    const int64_t ch = x.dim(rank_ - 1), rows = ch == 0 ? 0 : x.num_elements() / ch;
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(1), "scale", ch));
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(2), "offset", ch));
    // Training with a factor of 1 never reads the running statistics: they may be empty.
    const bool need_stats = !training_ || factor_ != 1.0f;
    if (need_stats || ctx.input(3).num_elements() != 0)
      CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(3), "mean", ch));
    if (need_stats || ctx.input(4).num_elements() != 0)
      CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(4), "variance", ch));
    tensor* y = ctx.allocate_output(0, x.shape());
    tensor* outs[5] = {};
    for (int i = 1; i <= 4; ++i) outs[i] = ctx.allocate_output(i, tensor_shape{ch});
    if (ctx.num_outputs() > 5 && !ctx.allocate_output(5, tensor_shape{0})) return;
    if (!y || !outs[1] || !outs[2] || !outs[3] || !outs[4]) return;

    const T* xv = x.data<T>();
    const T* scale = ctx.input(1).data<T>();
    const T* offset = ctx.input(2).data<T>();
    std::vector<double> mean(ch, 0.0), var(ch, 0.0);
    if (training_) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < ch; ++c) mean[c] += xv[r * ch + c];
      for (int64_t c = 0; c < ch; ++c) mean[c] /= std::max<int64_t>(rows, 1);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < ch; ++c) {
          const double d = xv[r * ch + c] - mean[c];
          var[c] += d * d;
        }
      for (int64_t c = 0; c < ch; ++c) var[c] /= std::max<int64_t>(rows, 1);
    } else {
      for (int64_t c = 0; c < ch; ++c) {
        mean[c] = ctx.input(3).data<T>()[c];
        var[c] = ctx.input(4).data<T>()[c];
      }
    }
    std::vector<double> mul(ch), add(ch);
    for (int64_t c = 0; c < ch; ++c) {
      mul[c] = scale[c] / std::sqrt(var[c] + epsilon_);
      add[c] = offset[c] - mean[c] * mul[c];
    }
    T* yv = y->data<T>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < ch; ++c)
        yv[r * ch + c] = static_cast<T>(xv[r * ch + c] * mul[c] + add[c]);

    T *batch_mean = outs[1]->data<T>(), *batch_var = outs[2]->data<T>();
    T *saved_mean = outs[3]->data<T>(), *saved_var = outs[4]->data<T>();
    // The moving averages get the unbiased variance, y used the biased one (as TF does).
    const double correction = rows > 1 ? static_cast<double>(rows) / (rows - 1) : 1.0;
    for (int64_t c = 0; c < ch; ++c) {
      saved_mean[c] = static_cast<T>(mean[c]);
      saved_var[c] = static_cast<T>(var[c]);
      if (!training_) {
        batch_mean[c] = static_cast<T>(mean[c]);
        batch_var[c] = static_cast<T>(var[c]);
      } else if (factor_ == 1.0f) {
        batch_mean[c] = static_cast<T>(mean[c]);
        batch_var[c] = static_cast<T>(var[c] * correction);
      } else {
        const double f = factor_;
        batch_mean[c] = static_cast<T>((1 - f) * ctx.input(3).data<T>()[c] + f * mean[c]);
        batch_var[c] =
            static_cast<T>((1 - f) * ctx.input(4).data<T>()[c] + f * var[c] * correction);
      }
    }
  }

 private:
  float factor_ = 1.0f;
};

template <class T>
class fused_batch_norm_grad_op final : public batch_norm_base {
 public:
  using batch_norm_base::batch_norm_base;

  void compute(kernel_context& ctx) override {
    const tensor& dy = ctx.input(0);
    const tensor& x = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_x(x, "x"));
    CAFLOW_OP_REQUIRES(ctx, dy.shape() == x.shape(),
                       errors::invalid_argument("y_backprop has shape ", dy.shape().to_string(),
                                                " but x has shape ", x.shape().to_string()));
    const int64_t ch = x.dim(rank_ - 1), rows = ch == 0 ? 0 : x.num_elements() / ch;
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(2), "scale", ch));
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(3), "reserve_space_1", ch));
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(ctx.input(4), "reserve_space_2", ch));
    tensor* dx = ctx.allocate_output(0, x.shape());
    tensor* dscale = ctx.allocate_output(1, tensor_shape{ch});
    tensor* doffset = ctx.allocate_output(2, tensor_shape{ch});
    tensor* r4 = ctx.allocate_output(3, tensor_shape{0});
    tensor* r5 = ctx.allocate_output(4, tensor_shape{0});
    if (!dx || !dscale || !doffset || !r4 || !r5) return;
    const T *g = dy.data<T>(), *xv = x.data<T>(), *scale = ctx.input(2).data<T>();
    const T *mean = ctx.input(3).data<T>(), *var = ctx.input(4).data<T>();
    std::vector<double> inv(ch), sum_g(ch, 0.0), sum_gx(ch, 0.0);
    for (int64_t c = 0; c < ch; ++c) inv[c] = 1.0 / std::sqrt(double{var[c]} + epsilon_);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < ch; ++c) {
        const int64_t i = r * ch + c;
        sum_g[c] += g[i];
        sum_gx[c] += g[i] * (xv[i] - mean[c]) * inv[c];
      }
    T* dxv = dx->data<T>();
    const double n = static_cast<double>(std::max<int64_t>(rows, 1));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < ch; ++c) {
        const int64_t i = r * ch + c;
        const double k = scale[c] * inv[c];
        if (training_) {
          const double xhat = (xv[i] - mean[c]) * inv[c];
          dxv[i] = static_cast<T>(k * (g[i] - sum_g[c] / n - xhat * sum_gx[c] / n));
        } else {
          dxv[i] = static_cast<T>(k * g[i]);
        }
      }
    for (int64_t c = 0; c < ch; ++c) {
      dscale->data<T>()[c] = static_cast<T>(sum_gx[c]);
      doffset->data<T>()[c] = static_cast<T>(sum_g[c]);
    }
  }
};

// The V2 and V3 ops constrain T and U (equal here); the first versions only T.
template <template <class> class K, class T>
kernel_def bn_kernel(const char* op, bool has_u = true) {
  kernel_def_builder b(op);
  b.device(device_cpu).type_constraint("T", dtype_v<T>);
  if (has_u) b.type_constraint("U", dtype_v<T>);
  return b.build([](kernel_construction& c) -> std::unique_ptr<op_kernel> {
        return std::make_unique<K<T>>(c);
      });
}

}  // namespace

static const kernel_registrar fbn1_f32(bn_kernel<fused_batch_norm_op, float>("FusedBatchNorm",
                                                                            false));
static const kernel_registrar fbn1_f64(bn_kernel<fused_batch_norm_op, double>("FusedBatchNorm",
                                                                             false));
static const kernel_registrar fbn2_f32(bn_kernel<fused_batch_norm_op, float>("FusedBatchNormV2"));
static const kernel_registrar fbn2_f64(bn_kernel<fused_batch_norm_op, double>("FusedBatchNormV2"));
static const kernel_registrar fbng1_f32(
    bn_kernel<fused_batch_norm_grad_op, float>("FusedBatchNormGrad", false));
static const kernel_registrar fbng1_f64(
    bn_kernel<fused_batch_norm_grad_op, double>("FusedBatchNormGrad", false));
static const kernel_registrar fbng2_f32(
    bn_kernel<fused_batch_norm_grad_op, float>("FusedBatchNormGradV2"));
static const kernel_registrar fbng2_f64(
    bn_kernel<fused_batch_norm_grad_op, double>("FusedBatchNormGradV2"));
static const kernel_registrar fbn_f32(bn_kernel<fused_batch_norm_op, float>("FusedBatchNormV3"));
static const kernel_registrar fbn_f64(bn_kernel<fused_batch_norm_op, double>("FusedBatchNormV3"));
static const kernel_registrar fbng_f32(
    bn_kernel<fused_batch_norm_grad_op, float>("FusedBatchNormGradV3"));
static const kernel_registrar fbng_f64(
    bn_kernel<fused_batch_norm_grad_op, double>("FusedBatchNormGradV3"));

}  // namespace caflow
