// _FusedConv2D, _FusedDepthwiseConv2dNative and FusedDepthwiseConv2dNative on the CPU: the
// convolutions of conv_forward.hpp and depthwise_forward.hpp with their epilogue
// (fused_epilogue.hpp) applied per block of output, as TensorFlow's CPU kernels do. NHWC only,
// like the unfused kernels.
#include "graph/util/depthwise_geometry.hpp"
#include "graph/util/fused_op_spec.hpp"
#include "kernels/cpu/conv_forward.hpp"
#include "kernels/cpu/conv_util.hpp"
#include "kernels/cpu/depthwise_forward.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class fused_conv2d_op final : public conv::conv2d_kernel_base {
 public:
  explicit fused_conv2d_op(kernel_construction& c) : conv2d_kernel_base(c) {
    auto spec = parse_fused_op_spec(c.def(), /*batch_norm_allowed=*/true);
    CAFLOW_OP_REQUIRES_OK(c, spec.get_status());
    spec_ = std::move(*spec);
  }

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& filter = ctx.input(1);
    auto g = conv2d_kernel_geometry(params_, input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, g.get_status());
    auto epilogue = channel_epilogue<T>::make(spec_, ctx, 2, g->out_depth);
    CAFLOW_OP_REQUIRES_OK(ctx, epilogue.get_status());
    tensor* out = ctx.allocate_output(0, g->output_shape());
    if (out == nullptr) return;
    conv::conv2d_forward<T>(ctx, *g, input, filter, *out, &*epilogue);
  }

 private:
  fused_op_spec spec_;
};

template <class T>
class fused_depthwise_op final : public op_kernel {
 public:
  explicit fused_depthwise_op(kernel_construction& c) : op_kernel(c) {
    auto p = parse_conv2d_params(c.def());
    CAFLOW_OP_REQUIRES_OK(c, p.get_status());
    CAFLOW_OP_REQUIRES(c, !p->nchw,
                       errors::unimplemented("the CPU kernel supports only data_format NHWC, got "
                                             "NCHW"));
    params_ = *p;
    auto spec = parse_fused_op_spec(c.def(), /*batch_norm_allowed=*/true);
    CAFLOW_OP_REQUIRES_OK(c, spec.get_status());
    spec_ = std::move(*spec);
  }

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& filter = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, input.rank() == 4 && filter.rank() == 4,
                       errors::invalid_argument("input and filter must be 4-dimensional, got ",
                                                input.shape().to_string(), " and ",
                                                filter.shape().to_string()));
    auto g = depthwise_geometry_for(params_, input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, g.get_status());
    auto epilogue = channel_epilogue<T>::make(spec_, ctx, 2, g->out_depth());
    CAFLOW_OP_REQUIRES_OK(ctx, epilogue.get_status());
    tensor* out = ctx.allocate_output(0, g->output_shape());
    if (out == nullptr) return;
    depthwise_forward<T>(ctx, *g, input, filter, *out, &*epilogue);
  }

 private:
  conv2d_params params_;
  fused_op_spec spec_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("_FusedConv2D", device_cpu, "T", fused_conv2d_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("_FusedDepthwiseConv2dNative", device_cpu, "T", fused_depthwise_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("FusedDepthwiseConv2dNative", device_cpu, "T", fused_depthwise_op,
                              float, double);

}  // namespace caflow
