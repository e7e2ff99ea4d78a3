// BiasAdd, BiasAddGrad, Softmax, LogSoftmax and the softmax cross-entropy losses on the GPU.
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

// As on the CPU, only NHWC (the bias along the last dimension) has a kernel.
status check_data_format(kernel_construction& c) {
  std::string data_format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &data_format));
  if (data_format == "NCHW")
    return errors::unimplemented("data_format \"NCHW\" has no GPU kernel; use \"NHWC\" ",
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
class bias_add_op final : public gpu_op_kernel {
 public:
  explicit bias_add_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_data_format(c));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(value, ctx, g, 0);
    CAFLOW_GPU_INPUT(bias, ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_rank("value", value));
    const int64_t channels = value.dim(value.rank() - 1);
    CAFLOW_OP_REQUIRES(ctx, bias.rank() == 1 && bias.dim(0) == channels,
                       errors::invalid_argument("bias of shape ", bias.shape().to_string(),
                                                " must be a vector as long as the last dimension",
                                                " of value of shape ", value.shape().to_string()));
    tensor out = allocate_output(ctx, g, 0, value.shape());
    if (!out.initialized() || value.num_elements() == 0) return;
    launch_bias_add<T>(value.data<T>(), bias.data<T>(), out.data<T>(), value.num_elements(),
                       channels, 1, g.compute_stream());
  }
};

template <class T>
class bias_add_grad_op final : public gpu_op_kernel {
 public:
  explicit bias_add_grad_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, check_data_format(c));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_rank("out_backprop", in));
    const int64_t channels = in.dim(in.rank() - 1);
    tensor out = allocate_output(ctx, g, 0, tensor_shape{channels});
    if (!out.initialized() || channels == 0) return;
    const int64_t rows = in.num_elements() / channels;
    if (rows == 0) {
      launch_fill<T>(out.data<T>(), channels, T(0), g.compute_stream());
      return;
    }
    // Column sums: the middle dim of [1, rows, channels].
    launch_reduce<sum_r, T>(in.data<T>(), out.data<T>(), 1, rows, channels, g.compute_stream());
  }
};

template <class T, bool Log>
class softmax_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    CAFLOW_OP_REQUIRES(ctx, in.rank() >= 1,
                       errors::invalid_argument("logits must have at least one dimension, got ",
                                                "shape ", in.shape().to_string()));
    tensor out = allocate_output(ctx, g, 0, in.shape());
    if (!out.initialized() || in.num_elements() == 0) return;
    const int64_t cols = in.dim(in.rank() - 1);
    launch_softmax<T>(in.data<T>(), out.data<T>(), in.num_elements() / cols, cols, Log,
                      g.compute_stream());
  }
};

template <class T>
using softmax_kernel = softmax_op<T, false>;
template <class T>
using log_softmax_kernel = softmax_op<T, true>;

status check_features(const tensor& features) {
  if (features.rank() != 2)
    return errors::invalid_argument("features must be a matrix [batch, classes], got shape ",
                                    features.shape().to_string());
  return {};
}

template <class T>
class softmax_xent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(features, ctx, g, 0);
    CAFLOW_GPU_INPUT(labels, ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_features(features));
    CAFLOW_OP_REQUIRES(ctx, labels.shape() == features.shape(),
                       errors::invalid_argument("labels of shape ", labels.shape().to_string(),
                                                " must have the shape of features ",
                                                features.shape().to_string()));
    const int64_t rows = features.dim(0), cols = features.dim(1);
    tensor loss = allocate_output(ctx, g, 0, tensor_shape{rows});
    if (!loss.initialized()) return;
    tensor backprop = allocate_output(ctx, g, 1, features.shape());
    if (!backprop.initialized()) return;
    launch_softmax_xent<T>(features.data<T>(), labels.data<T>(), cols, loss.data<T>(),
                           backprop.data<T>(), rows, cols, g.compute_stream());
  }
};

// Labels stay on the GPU, so they are not range-checked on the host: as in TF's GPU kernel, a
// label outside [0, classes) gives NaN loss and gradient for its row.
template <class T, class Index>
class sparse_softmax_xent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(features, ctx, g, 0);
    CAFLOW_GPU_INPUT(labels, ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_features(features));
    CAFLOW_OP_REQUIRES(ctx, labels.rank() == 1 && labels.dim(0) == features.dim(0),
                       errors::invalid_argument("labels of shape ", labels.shape().to_string(),
                                                " must be a vector with one entry per row of ",
                                                "features of shape ",
                                                features.shape().to_string()));
    const int64_t rows = features.dim(0), cols = features.dim(1);
    tensor loss = allocate_output(ctx, g, 0, tensor_shape{rows});
    if (!loss.initialized()) return;
    tensor backprop = allocate_output(ctx, g, 1, features.shape());
    if (!backprop.initialized()) return;
    launch_sparse_softmax_xent<T, Index>(features.data<T>(), labels.data<Index>(), loss.data<T>(),
                                         backprop.data<T>(), rows, cols, g.compute_stream());
  }
};

const typed_kernel_registrar2<sparse_softmax_xent_op, type_list<float, double>,
                              type_list<int32_t, int64_t>>
    sparse_xent_kernels("SparseSoftmaxCrossEntropyWithLogits", device_gpu, "T", "Tlabels");

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BiasAdd", device_gpu, "T", bias_add_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("BiasAddGrad", device_gpu, "T", bias_add_grad_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Softmax", device_gpu, "T", softmax_kernel, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("LogSoftmax", device_gpu, "T", log_softmax_kernel, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("SoftmaxCrossEntropyWithLogits", device_gpu, "T", softmax_xent_op,
                              float, double);

}  // namespace caflow::gpu
