// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on the GPU through cuDNN, for NHWC
// float32. Shapes and padding are resolved by the same conv2d_geometry_for as the CPU kernels,
// so both accept the same inputs and word their errors alike.
//
// Two layout mismatches are bridged by copies on the GPU: caflow's HWIO filters (the
// [patch, out_depth] matrix) are transposed to cuDNN's out_depth-first KRSC and back, and
// padding cuDNN cannot express (SAME's extra row or column after the input) is added to a copy
// of the input, or, for the input gradient, computed over the padded frame and cropped off
// (see window_plan.hpp).
//
// Each kernel keeps, per geometry, its descriptors and the algorithm cuDNN measured fastest for
// them (plan_cache.hpp): the first step of a shape pays for the search, later steps only
// queue the convolution, with a workspace of the chosen algorithm's size from the GPU's BFC.
#include <array>

#include "kernels/common/conv_checks.hpp"
#include "kernels/gpu/conv_algorithm.hpp"
#include "kernels/gpu/plan_cache.hpp"
#include "kernels/gpu/cudnn_support.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

// What cuDNN needs for one geometry, made once; x describes the padded frame.
template <class Algo>
struct cudnn_conv : conv_descriptors {
  window_plan plan;
  nhwc_dims output;
  measured_algorithm<Algo> chosen;
};

// The chosen algorithm's workspace from the GPU's allocator (none when it needs none).
template <class Algo>
status_or<tensor> workspace_for(gpu_device& dev, const cudnn_conv<Algo>& c) {
  if (c.chosen.workspace_bytes == 0) return tensor();
  return allocate_scratch(dev, c.chosen.workspace_bytes);
}
inline void* data_or_null(const tensor& t) { return t.initialized() ? t.raw_data() : nullptr; }

// Everything a search depends on. The rest is fixed for these kernels: float32, NHWC and
// dilation 1 (other dtypes, formats and dilations are refused at construction).
using conv_key = std::array<int64_t, 13>;
conv_key key_of(const conv2d_geometry& g) {
  return {g.batch,       g.in_rows,   g.in_cols,  g.in_depth, g.filter_rows,
          g.filter_cols, g.out_depth, g.out_rows, g.out_cols, g.stride_rows,
          g.stride_cols, g.pad_top,   g.pad_left};
}

// Reads and checks Conv2D's attrs once (kernels/common/conv_checks.hpp).
template <class Algo>
class cudnn_conv_kernel : public gpu_op_kernel {
 public:
 public:
  explicit cudnn_conv_kernel(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_conv2d_kernel_params(c, device_gpu, &params_));
  }

 protected:
  // REQUIRES a non-empty output and patch.
  static status_or<cudnn_conv<Algo>> describe(const conv2d_geometry& g) {
    cudnn_conv<Algo> d;
    d.plan = plan_window(g);
    d.output = {g.batch, g.out_rows, g.out_cols, g.out_depth};
    CAFLOW_RETURN_IF_ERROR(check_cudnn_sizes(
        {d.plan.padded, d.output, {g.out_depth, g.filter_rows, g.filter_cols, g.in_depth}}));
    CAFLOW_ASSIGN_OR_RETURN(d.x, make_tensor_descriptor(d.plan.padded));
    CAFLOW_ASSIGN_OR_RETURN(d.y, make_tensor_descriptor(d.output));
    CAFLOW_ASSIGN_OR_RETURN(
        d.w, make_filter_descriptor(g.out_depth, g.filter_rows, g.filter_cols, g.in_depth));
    CAFLOW_ASSIGN_OR_RETURN(
        d.conv, make_convolution_descriptor(d.plan.rows.cudnn, d.plan.cols.cudnn, g.stride_rows,
                                            g.stride_cols));
    // cuDNN refuses an output of another size; saying so here names both sizes.
    int n = 0, c = 0, h = 0, w = 0;
    CAFLOW_RETURN_IF_ERROR(cudnn_status(
        cudnnGetConvolution2dForwardOutputDim(d.conv.get(), d.x.get(), d.w.get(), &n, &c, &h, &w),
        "cudnnGetConvolution2dForwardOutputDim"));
    if (n != g.batch || c != g.out_depth || h != g.out_rows || w != g.out_cols)
      return errors::internal("cuDNN's convolution gives [", n, ",", h, ",", w, ",", c,
                              "] where TensorFlow's gives ", g.output_shape().to_string());
    return d;
  }

  // The filter (HWIO) in cuDNN's KRSC order.
  static status_or<tensor> to_krsc(gpu_device& dev, const tensor& filter,
                                   const conv2d_geometry& g) {
    CAFLOW_ASSIGN_OR_RETURN(tensor t,
                            dev.allocate(dtype::float32, tensor_shape{g.out_depth, g.filter_rows,
                                                                      g.filter_cols, g.in_depth}));
    launch_transpose<float>(filter.data<float>(), g.patch_size(), g.out_depth, t.data<float>(),
                            dev.compute_stream());
    return t;
  }

  conv2d_params params_;
  plan_cache<conv_key, cudnn_conv<Algo>> plans_;
};

class conv2d_op final : public cudnn_conv_kernel<cudnnConvolutionFwdAlgo_t> {
  using algo = cudnnConvolutionFwdAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    CAFLOW_GPU_INPUT(input, ctx, dev, 0);
    CAFLOW_GPU_INPUT(filter, ctx, dev, 1);
    auto resolved = conv2d_kernel_geometry(params_, input.shape(), filter.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = *resolved;
    tensor out = allocate_output(ctx, dev, 0, g.output_shape());
    if (!out.initialized() || out.num_elements() == 0) return;
    if (g.patch_size() == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, run(dev, g, input, filter, out));
  }

 private:
  status run(gpu_device& dev, const conv2d_geometry& g, const tensor& input, const tensor& filter,
             tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, input, plan_window(g), 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, filter, g));
    CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
    CAFLOW_ASSIGN_OR_RETURN(auto c, plans_.get(key_of(g), [&]() -> status_or<cudnn_conv<algo>> {
      CAFLOW_ASSIGN_OR_RETURN(cudnn_conv<algo> d, describe(g));
      CAFLOW_ASSIGN_OR_RETURN(d.chosen, measure_forward(dev, cudnn.handle, d, x.data<float>(),
                                                        w.data<float>(), out.data<float>()));
      return d;
    }));
    CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_for(dev, *c));
    const float one = 1, zero = 0;
    return cudnn_status(
        cudnnConvolutionForward(cudnn.handle, &one, c->x.get(), x.data<float>(), c->w.get(),
                                w.data<float>(), c->conv.get(), c->chosen.algo, data_or_null(ws),
                                c->chosen.workspace_bytes, &zero, c->y.get(), out.data<float>()),
        "cudnnConvolutionForward");
  }
};

class conv2d_backprop_input_op final : public cudnn_conv_kernel<cudnnConvolutionBwdDataAlgo_t> {
  using algo = cudnnConvolutionBwdDataAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    auto sizes = host_input(ctx, dev, 0);
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    CAFLOW_GPU_INPUT(filter, ctx, dev, 1);
    CAFLOW_GPU_INPUT(out_backprop, ctx, dev, 2);
    auto resolved =
        conv2d_backprop_input_geometry(params_, *sizes, filter.shape(), out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor out = allocate_output(ctx, dev, 0, resolved->shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    // No output position (or no output channel) reads the input: its gradient is zero.
    if (g.out_pixels() == 0 || g.out_depth == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, run(dev, g, filter, out_backprop, out));
  }

 private:
  status run(gpu_device& dev, const conv2d_geometry& g, const tensor& filter,
             const tensor& out_backprop, tensor& out) {
    const window_plan plan = plan_window(g);
    CAFLOW_ASSIGN_OR_RETURN(tensor w, to_krsc(dev, filter, g));
    // The gradient over cuDNN's frame; the extra padding's part is cropped off below.
    CAFLOW_ASSIGN_OR_RETURN(tensor dx, gradient_frame(dev, plan, out));
    {
      CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
      CAFLOW_ASSIGN_OR_RETURN(auto c, plans_.get(key_of(g), [&]() -> status_or<cudnn_conv<algo>> {
        CAFLOW_ASSIGN_OR_RETURN(cudnn_conv<algo> d, describe(g));
        CAFLOW_ASSIGN_OR_RETURN(
            d.chosen, measure_backward_data(dev, cudnn.handle, d, w.data<float>(),
                                            out_backprop.data<float>(), dx.data<float>()));
        return d;
      }));
      CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_for(dev, *c));
      const float one = 1, zero = 0;
      CAFLOW_RETURN_IF_ERROR(cudnn_status(
          cudnnConvolutionBackwardData(cudnn.handle, &one, c->w.get(), w.data<float>(), c->y.get(),
                                       out_backprop.data<float>(), c->conv.get(), c->chosen.algo,
                                       data_or_null(ws), c->chosen.workspace_bytes, &zero,
                                       c->x.get(), dx.data<float>()),
          "cudnnConvolutionBackwardData"));
    }
    crop_from_frame(dev, plan, dx, out);
    return {};
  }
};

class conv2d_backprop_filter_op final : public cudnn_conv_kernel<cudnnConvolutionBwdFilterAlgo_t> {
  using algo = cudnnConvolutionBwdFilterAlgo_t;

 public:
  using cudnn_conv_kernel::cudnn_conv_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& dev) override {
    CAFLOW_GPU_INPUT(input, ctx, dev, 0);
    auto sizes = host_input(ctx, dev, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, sizes.get_status());
    CAFLOW_GPU_INPUT(out_backprop, ctx, dev, 2);
    auto resolved =
        conv2d_backprop_filter_geometry(params_, input.shape(), *sizes, out_backprop.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, resolved.get_status());
    const conv2d_geometry& g = resolved->geometry;
    tensor out = allocate_output(ctx, dev, 0, resolved->shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    if (g.out_pixels() == 0) {
      CAFLOW_OP_REQUIRES_OK(ctx, fill_zeros(dev, out));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, run(dev, g, input, out_backprop, out));
  }

 private:
  status run(gpu_device& dev, const conv2d_geometry& g, const tensor& input,
             const tensor& out_backprop, tensor& out) {
    CAFLOW_ASSIGN_OR_RETURN(tensor x, padded_input(dev, input, plan_window(g), 0.0f));
    CAFLOW_ASSIGN_OR_RETURN(tensor dw,
                            dev.allocate(dtype::float32, tensor_shape{g.out_depth, g.filter_rows,
                                                                      g.filter_cols, g.in_depth}));
    {
      CAFLOW_ASSIGN_OR_RETURN(auto cudnn, dev.cudnn());
      CAFLOW_ASSIGN_OR_RETURN(auto c, plans_.get(key_of(g), [&]() -> status_or<cudnn_conv<algo>> {
        CAFLOW_ASSIGN_OR_RETURN(cudnn_conv<algo> d, describe(g));
        CAFLOW_ASSIGN_OR_RETURN(
            d.chosen, measure_backward_filter(dev, cudnn.handle, d, x.data<float>(),
                                              out_backprop.data<float>(), dw.data<float>()));
        return d;
      }));
      CAFLOW_ASSIGN_OR_RETURN(tensor ws, workspace_for(dev, *c));
      const float one = 1, zero = 0;
      CAFLOW_RETURN_IF_ERROR(cudnn_status(
          cudnnConvolutionBackwardFilter(cudnn.handle, &one, c->x.get(), x.data<float>(), c->y.get(),
                                         out_backprop.data<float>(), c->conv.get(), c->chosen.algo,
                                         data_or_null(ws), c->chosen.workspace_bytes, &zero,
                                         c->w.get(), dw.data<float>()),
          "cudnnConvolutionBackwardFilter"));
    }
    // KRSC, read as [out_depth, patch], back to HWIO.
    launch_transpose<float>(dw.data<float>(), g.out_depth, g.patch_size(), out.data<float>(),
                            dev.compute_stream());
    return {};
  }
};

}  // namespace

// input_sizes and filter_sizes are read on the host (one small copy back when they are on the
// GPU): the registry has no host-memory arguments yet.
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Conv2D").device(device_gpu).type_constraint<float>("T"),
                       conv2d_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("Conv2DBackpropInput").device(device_gpu).type_constraint<float>("T"),
    conv2d_backprop_input_op);
CAFLOW_REGISTER_KERNEL(
    kernel_def_builder("Conv2DBackpropFilter").device(device_gpu).type_constraint<float>("T"),
    conv2d_backprop_filter_op);

}  // namespace caflow::gpu
