// BiasAdd, BiasAddGrad, Softmax, LogSoftmax and the softmax cross-entropy losses on the GPU.
#include "kernels/common/loss_checks.hpp"
#include "kernels/common/nn_checks.hpp"
#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/gpu_reduce.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

template <class T>
class bias_add_op final : public gpu_op_kernel {
 public:
  explicit bias_add_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, nn::check_bias_data_format(c, device_gpu));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(value, ctx, g, 0);
    CAFLOW_GPU_INPUT(bias, ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_bias_add_shapes(value.shape(), bias.shape()));
    const int64_t channels = value.dim(value.rank() - 1);
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
    CAFLOW_OP_REQUIRES_OK(c, nn::check_bias_data_format(c, device_gpu));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_bias_add_grad_shape(in.shape()));
    const int64_t channels = in.dim(in.rank() - 1);
    tensor out = allocate_output(ctx, g, 0, tensor_shape{channels});
    if (!out.initialized() || channels == 0) return;
    const int64_t rows = in.num_elements() / channels;
    if (rows == 0) {
      launch_fill<T>(out.data<T>(), channels, T(0), g.compute_stream());
      return;
    }
    // Column sums: the middle dim of [1, rows, channels].
    CAFLOW_OP_REQUIRES_OK(ctx, (reduce_on<sum_r, T>(g, in.data<T>(), out.data<T>(), 1, rows, channels)));
  }
};

template <class T, bool Log>
class softmax_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(in, ctx, g, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_softmax_logits(in.shape()));
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

template <class T>
class softmax_xent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(features, ctx, g, 0);
    CAFLOW_GPU_INPUT(labels, ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, nn::check_softmax_xent_shapes(features.shape(), labels.shape()));
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
    CAFLOW_OP_REQUIRES_OK(ctx,
                          nn::check_sparse_softmax_xent_shapes(features.shape(), labels.shape()));
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
