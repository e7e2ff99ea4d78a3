// MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad on the GPU through cuDNN, for NHWC float32.
// Windows are resolved by the same pool_geometry_for as the CPU kernels.
//
// Padding cuDNN cannot express (see window_plan.hpp) is added to a copy of the input: -inf
// for max pooling, which never wins a window, and zeros for average pooling. An average is
// TensorFlow's mean over the window's part inside the input; cuDNN is asked for the mean over
// the whole window, counting padding (its own and the copy's zeros alike), and the result is
// rescaled by area / inside-count at each output position. The gradient is scaled the same
// way before cuDNN spreads it. Gradients over a padded copy are cropped back to the input.
#include <limits>

#include "kernels/common/pool_checks.hpp"
#include "kernels/gpu/cudnn_support.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

// What cuDNN needs for one pooling geometry.
struct cudnn_pool {
  window_plan plan;
  nhwc_dims output;
  tensor_descriptor x, y;  // x over the padded frame
  pooling_descriptor pool;
};

// Reads and checks the pooling attrs once (kernels/common/pool_checks.hpp).
class cudnn_pool_kernel : public gpu_op_kernel {
 public:
  explicit cudnn_pool_kernel(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_pool_kernel_params(c, device_gpu, &params_));
  }

 protected:
  // MaxPool's and AvgPool's compute: pools input 0 (`what` in errors) into output 0 through
  // run(dev, geometry, input, out), unless the output is empty.
  template <class Run>
  void pool_forward(kernel_context& ctx, gpu_device& dev, const char* what, Run run) {
    CAFLOW_GPU_INPUT(input, ctx, dev, 0);
    auto resolved = pool_kernel_geometry(params_, input.shape(), what);
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    tensor out = allocate_output(ctx, dev, 0, resolved->output_shape());
    if (!out.initialized() || out.num_elements() == 0) return;
    CAFLOW_OP_REQUIRES_OK(ctx, run(dev, *resolved, input, out));
  }

  // The gradient ops' output: of the input's shape, filled by run(out), or zeros when no
  // window covers anything.
  template <class Run>
  void pool_gradient(kernel_context& ctx, gpu_device& dev, const conv2d_geometry& g,
                     const tensor_shape& input_shape, Run run) {
    tensor out = allocate_output(ctx, dev, 0, input_shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    if (g.out_pixels() == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, run(out));
  }

  // REQUIRES a non-empty output.
  static status_or<cudnn_pool> describe(const conv2d_geometry& g, cudnnPoolingMode_t mode) {
    cudnn_pool d;
    d.plan = plan_window(g);
    d.output = {g.batch, g.out_rows, g.out_cols, g.in_depth};
    CAFLOW_RETURN_IF_ERROR(check_cudnn_sizes({d.plan.padded, d.output}));
    CAFLOW_ASSIGN_OR_RETURN(d.x, make_tensor_descriptor(d.plan.padded));
    CAFLOW_ASSIGN_OR_RETURN(d.y, make_tensor_descriptor(d.output));
    CAFLOW_ASSIGN_OR_RETURN(
        d.pool, make_pooling_descriptor(mode, g.filter_rows, g.filter_cols, d.plan.rows.cudnn,
                                        d.plan.cols.cudnn, g.stride_rows, g.stride_cols));
    int n = 0, c = 0, h = 0, w = 0;
    CAFLOW_RETURN_IF_ERROR(
        cudnn_status(cudnnGetPooling2dForwardOutputDim(d.pool.get(), d.x.get(), &n, &c, &h, &w),
                     "cudnnGetPooling2dForwardOutputDim"));
    if (n != g.batch || c != g.in_depth || h != g.out_rows || w != g.out_cols)
      return errors::internal("cuDNN's pooling gives [", n, ",", h, ",", w, ",", c,
                              "] where TensorFlow's gives ", g.output_shape().to_string());
    return d;
  }

  // Whether any window reaches into padding, where cuDNN's average and TensorFlow's differ.
  static bool padded(const window_plan& plan) {
    return plan.rows.cudnn + plan.rows.extra_before + plan.rows.extra_after + plan.cols.cudnn +
               plan.cols.extra_before + plan.cols.extra_after >
           0;
  }

  static pool_window window_of(const conv2d_geometry& g) {
    return {g.in_rows,     g.in_cols,     g.filter_rows, g.filter_cols,
            g.stride_rows, g.stride_cols, g.pad_top,     g.pad_left};
  }

  pool_params params_;
};

// Deterministic: the backward pass sends each window's gradient to one position, the same
// every run.
constexpr cudnnPoolingMode_t max_mode = CUDNN_POOLING_MAX_DETERMINISTIC;
constexpr cudnnPoolingMode_t average_mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;

class max_pool_op final : public cudnn_pool_kernel {
 public:
  using cudnn_pool_kernel::cudnn_pool_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    pool_forward(ctx, dev, "input", run);
  }

 private:
  static status run(gpu_device& dev, const conv2d_geometry& g, const tensor& input, tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(cudnn_pool d, describe(g, max_mode));
    CAFLOW_ASSIGN_OR_RETURN(
        tensor x, padded_input(dev, input, d.plan, -std::numeric_limits<float>::infinity()));
    CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
    const float one = 1, zero = 0;
    return cudnn_status(cudnnPoolingForward(cudnn.handle, d.pool.get(), &one, d.x.get(),
                                            x.data<float>(), &zero, d.y.get(), out.data<float>()),
                        "cudnnPoolingForward");
  }
};

class max_pool_grad_op final : public cudnn_pool_kernel {
 public:
  using cudnn_pool_kernel::cudnn_pool_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    CAFLOW_GPU_INPUT(orig_input, ctx, dev, 0);
    CAFLOW_GPU_INPUT(orig_output, ctx, dev, 1);
    CAFLOW_GPU_INPUT(grad, ctx, dev, 2);
    auto resolved =
        max_pool_grad_geometry(params_, orig_input.shape(), orig_output.shape(), grad.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    pool_gradient(ctx, dev, g, orig_input.shape(),
                  [&](tensor& out) { return run(dev, g, orig_input, orig_output, grad, out); });
  }

 private:
  static status run(gpu_device& dev, const conv2d_geometry& g, const tensor& input,
                    const tensor& output, const tensor& grad, tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(cudnn_pool d, describe(g, max_mode));
    CAFLOW_ASSIGN_OR_RETURN(
        tensor x, padded_input(dev, input, d.plan, -std::numeric_limits<float>::infinity()));
    CAFLOW_ASSIGN_OR_RETURN(tensor dx, gradient_frame(dev, d.plan, out));
    {
      CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
      const float one = 1, zero = 0;
      CAFLOW_RETURN_IF_ERROR(cudnn_status(
          cudnnPoolingBackward(cudnn.handle, d.pool.get(), &one, d.y.get(), output.data<float>(),
                               d.y.get(), grad.data<float>(), d.x.get(), x.data<float>(), &zero,
                               d.x.get(), dx.data<float>()),
          "cudnnPoolingBackward"));
    }
    crop_from_frame(dev, d.plan, dx, out);
    return {};
  }
};

class avg_pool_op final : public cudnn_pool_kernel {
 public:
  using cudnn_pool_kernel::cudnn_pool_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    pool_forward(ctx, dev, "value", run);
  }

 private:
  static status run(gpu_device& dev, const conv2d_geometry& g, const tensor& input, tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(cudnn_pool d, describe(g, average_mode));
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, input, d.plan, 0.0f));
    {
      CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
      const float one = 1, zero = 0;
      CAFLOW_RETURN_IF_ERROR(
          cudnn_status(cudnnPoolingForward(cudnn.handle, d.pool.get(), &one, d.x.get(),
                                           x.data<float>(), &zero, d.y.get(), out.data<float>()),
                       "cudnnPoolingForward"));
    }
    if (padded(d.plan))
      launch_scale_to_inside_mean<float>(out.data<float>(), out.data<float>(), d.output,
                                         window_of(g), dev.compute_stream());
    return {};
  }
};

class avg_pool_grad_op final : public cudnn_pool_kernel {
 public:
  using cudnn_pool_kernel::cudnn_pool_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    auto sizes = host_input(ctx, dev, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    CAFLOW_GPU_INPUT(grad, ctx, dev, 1);
    auto resolved = avg_pool_grad_geometry(params_, *sizes, grad.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    pool_gradient(ctx, dev, g, resolved->shape,
                  [&](tensor& out) { return run(dev, g, grad, out); });
  }

 private:
  static status run(gpu_device& dev, const conv2d_geometry& g, const tensor& grad, tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(cudnn_pool d, describe(g, average_mode));
    // cuDNN spreads dy / area over the whole window; TensorFlow spreads dy / inside-count.
    tensor dy = grad;
    if (padded(d.plan)) {
      CAFLOW_ASSIGN_OR_RETURN(dy, dev.allocate(dtype::float32, grad.shape()));
      launch_scale_to_inside_mean<float>(grad.data<float>(), dy.data<float>(), d.output,
                                         window_of(g), dev.compute_stream());
    }
    CAFLOW_ASSIGN_OR_RETURN(tensor dx, gradient_frame(dev, d.plan, out));
    {
      CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
      const float one = 1, zero = 0;
      // An average's gradient does not depend on x or y, which cuDNN then does not read; it
      // still takes pointers of their shapes, and dy and dx have those shapes.
      CAFLOW_RETURN_IF_ERROR(cudnn_status(
          cudnnPoolingBackward(cudnn.handle, d.pool.get(), &one, d.y.get(), dy.data<float>(),
                               d.y.get(), dy.data<float>(), d.x.get(), dx.data<float>(), &zero,
                               d.x.get(), dx.data<float>()),
          "cudnnPoolingBackward"));
    }
    crop_from_frame(dev, d.plan, dx, out);
    return {};
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("MaxPool").device(device_gpu).type_constraint<float>("T"),
                       max_pool_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("MaxPoolGrad").device(device_gpu).type_constraint<float>("T"),
    max_pool_grad_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("AvgPool").device(device_gpu).type_constraint<float>("T"),
                       avg_pool_op);
// orig_input_shape is read on the host, as Conv2DBackpropInput's input_sizes.
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("AvgPoolGrad").device(device_gpu).type_constraint<float>("T"),
    avg_pool_grad_op);

}  // namespace caflow::gpu
