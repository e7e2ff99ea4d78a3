// BiasAdd and BiasAddGrad on CPU, for data_format NHWC (the bias runs along the last
// dimension). NCHW is a valid attr value but has no CPU kernel: building one fails at once.
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/cpu/reduction_common.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

status check_data_format(kernel_construction& c) {
  std::string data_format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &data_format));
  if (data_format == "NCHW")
    return errors::unimplemented("data_format \"NCHW\" has no CPU kernel; use \"NHWC\" ",
                                 "(channels in the last dimension)");
  if (data_format != "NHWC")
    return errors::invalid_argument("data_format must be \"NHWC\" or \"NCHW\", got \"",
                                    data_format, "\"");
  return {};
}

status check_rank(const char* name, const tensor& t) {
  if (t.rank() < 2)
    return errors::invalid_argument(name, " must have at least two dimensions, got shape ",
                                    t.shape().to_string());
  return {};
}

template <class T>
class bias_add_op final : public op_kernel {
 public:
  explicit bias_add_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_data_format(c));
  }

  void compute(kernel_context& ctx) override {
    const tensor& value = ctx.input(0);
    const tensor& bias = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_rank("value", value));
    const int64_t channels = value.dim(value.rank() - 1);
    CAFLOW_OP_REQUIRES(ctx, bias.rank() == 1 && bias.dim(0) == channels,
                       errors::invalid_argument("bias of shape ", bias.shape().to_string(),
                                                " must be a vector as long as the last dimension",
                                                " of value of shape ", value.shape().to_string()));
    tensor* out = ctx.allocate_output(0, value.shape());
    if (out == nullptr || value.num_elements() == 0) return;
    const T* x = value.data<T>();
    const T* b = bias.data<T>();
    T* y = out->data<T>();
    const double row_bytes = static_cast<double>(channels * sizeof(T));
    // A plain row loop: the compiler vectorizes it, and it avoids Eigen's per-packet index
    // arithmetic for broadcasting.
    cwise::for_range(ctx, value.num_elements() / channels, channels, row_bytes, row_bytes,
                     static_cast<double>(channels), [=](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r) {
                         const T* xr = x + r * channels;
                         T* yr = y + r * channels;
                         for (int64_t j = 0; j < channels; ++j) yr[j] = xr[j] + b[j];
                       }
                     });
  }
};

template <class T>
class bias_add_grad_op final : public op_kernel {
 public:
  explicit bias_add_grad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_data_format(c));
  }

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_rank("out_backprop", in));
    const int64_t channels = in.dim(in.rank() - 1);
    tensor* out = ctx.allocate_output(0, tensor_shape{channels});
    if (out == nullptr || channels == 0) return;
    const int64_t rows = in.num_elements() / channels;
    if (rows == 0) {
      std::fill(out->data<T>(), out->data<T>() + channels, T(0));
      return;
    }
    reduce_pass<T, Eigen::internal::SumReducer<T>>(ctx, in.data<T>(), out->data<T>(),
                                                   {.outer = 1, .size = rows, .inner = channels});
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BiasAdd", device_cpu, "T", bias_add_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("BiasAddGrad", device_cpu, "T", bias_add_grad_op, float, double);

}  // namespace caflow
