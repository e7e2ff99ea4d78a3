#include "kernels/gpu/cudnn_support.hpp"

#include <climits>

#include "devices/gpu/cuda_status.hpp"

namespace caflow::gpu {

status_or<tensor_descriptor> make_tensor_descriptor(const nhwc_dims& d) {
  cudnnTensorDescriptor_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnCreateTensorDescriptor(&raw), "cudnnCreateTensorDescriptor"));
  tensor_descriptor desc(raw);
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                              static_cast<int>(d.n), static_cast<int>(d.depth),
                                              static_cast<int>(d.rows), static_cast<int>(d.cols)),
                   "cudnnSetTensor4dDescriptor"));
  return desc;
}

status_or<filter_descriptor> make_filter_descriptor(int64_t out_depth, int64_t rows, int64_t cols,
                                                    int64_t in_depth) {
  cudnnFilterDescriptor_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnCreateFilterDescriptor(&raw), "cudnnCreateFilterDescriptor"));
  filter_descriptor desc(raw);
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnSetFilter4dDescriptor(raw, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                                 static_cast<int>(out_depth), static_cast<int>(in_depth),
                                 static_cast<int>(rows), static_cast<int>(cols)),
      "cudnnSetFilter4dDescriptor"));
  return desc;
}

status_or<convolution_descriptor> make_convolution_descriptor(int64_t pad_rows, int64_t pad_cols,
                                                              int64_t stride_rows,
                                                              int64_t stride_cols) {
  if (pad_rows > INT_MAX || pad_cols > INT_MAX || stride_rows > INT_MAX || stride_cols > INT_MAX)
    return errors::unimplemented("cuDNN takes int32 pads and strides, got pads ", pad_rows, ",",
                                 pad_cols, " and strides ", stride_rows, ",", stride_cols);
  cudnnConvolutionDescriptor_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnCreateConvolutionDescriptor(&raw), "cudnnCreateConvolutionDescriptor"));
  convolution_descriptor desc(raw);
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnSetConvolution2dDescriptor(raw, static_cast<int>(pad_rows), static_cast<int>(pad_cols),
                                      static_cast<int>(stride_rows), static_cast<int>(stride_cols),
                                      1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      "cudnnSetConvolution2dDescriptor"));
  // Full float32 (no TF32 tensor cores), as conv_algorithm.hpp explains.
  CAFLOW_RETURN_IF_ERROR(cudnn_status(cudnnSetConvolutionMathType(raw, CUDNN_FMA_MATH),
                                      "cudnnSetConvolutionMathType"));
  return desc;
}

status_or<pooling_descriptor> make_pooling_descriptor(cudnnPoolingMode_t mode, int64_t window_rows,
                                                      int64_t window_cols, int64_t pad_rows,
                                                      int64_t pad_cols, int64_t stride_rows,
                                                      int64_t stride_cols) {
  for (int64_t v : {window_rows, window_cols, pad_rows, pad_cols, stride_rows, stride_cols})
    if (v > INT_MAX)
      return errors::unimplemented("cuDNN takes int32 windows, pads and strides, got ", v);
  cudnnPoolingDescriptor_t raw = nullptr;
  CAFLOW_RETURN_IF_ERROR(
      cudnn_status(cudnnCreatePoolingDescriptor(&raw), "cudnnCreatePoolingDescriptor"));
  pooling_descriptor desc(raw);
  // NaNs are not propagated, as in the CPU kernels, where a NaN never wins a comparison.
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnSetPooling2dDescriptor(raw, mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(window_rows),
                                  static_cast<int>(window_cols), static_cast<int>(pad_rows),
                                  static_cast<int>(pad_cols), static_cast<int>(stride_rows),
                                  static_cast<int>(stride_cols)),
      "cudnnSetPooling2dDescriptor"));
  return desc;
}

status check_cudnn_sizes(std::initializer_list<nhwc_dims> batches) {
  for (const nhwc_dims& d : batches) {
    if (d.n > INT_MAX || d.rows > INT_MAX || d.cols > INT_MAX || d.depth > INT_MAX ||
        d.elements() > INT_MAX)
      return errors::unimplemented("cuDNN takes at most ", INT_MAX,
                                   " elements per tensor, got a batch of [", d.n, ",", d.rows, ",",
                                   d.cols, ",", d.depth, "]");
  }
  return {};
}

status_or<tensor> allocate_scratch(gpu_device& g, size_t bytes) {
  return g.allocate(dtype::uint8, tensor_shape{static_cast<int64_t>(bytes)});
}

status_or<tensor> padded_input(gpu_device& g, const tensor& input, const window_plan& plan,
                               float fill) {
  if (!plan.needs_copy()) return input;
  CAFLOW_ASSIGN_OR_RETURN(
      tensor padded, g.allocate(dtype::float32, tensor_shape{plan.padded.n, plan.padded.rows,
                                                             plan.padded.cols, plan.padded.depth}));
  launch_pad_nhwc<float>(input.data<float>(), plan.input, padded.data<float>(), plan.padded,
                         plan.rows.extra_before, plan.cols.extra_before, fill, g.compute_stream());
  return padded;
}

status_or<tensor> gradient_frame(gpu_device& g, const window_plan& plan, const tensor& out) {
  if (!plan.needs_copy()) return out;
  return g.allocate(dtype::float32, tensor_shape{plan.padded.n, plan.padded.rows,
                                                 plan.padded.cols, plan.padded.depth});
}

void crop_from_frame(gpu_device& g, const window_plan& plan, const tensor& frame, tensor& out) {
  if (!plan.needs_copy()) return;
  launch_crop_nhwc<float>(frame.data<float>(), plan.padded, out.data<float>(), plan.input,
                          plan.rows.extra_before, plan.cols.extra_before, g.compute_stream());
}

status fill_zeros(gpu_device& g, tensor& t) {
  return cuda_status(cudaMemsetAsync(t.raw_data(), 0, t.byte_size(), g.compute_stream()),
                     "cudaMemsetAsync");
}

}  // namespace caflow::gpu
