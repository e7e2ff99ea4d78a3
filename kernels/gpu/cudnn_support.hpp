#pragma once
// What the cuDNN convolution and pooling kernels share: owned descriptors, copies of the input
// padded as window_plan.hpp says, and scratch memory from the GPU's allocator. Convolutions
// choose their algorithms in conv_algorithm.hpp.
#include <memory>

#include "devices/gpu/gpu_device.hpp"
#include "kernels/gpu/window_launch.hpp"
#include "kernels/gpu/window_plan.hpp"

namespace caflow::gpu {

namespace cudnn_detail {
template <class D, cudnnStatus_t (*destroy)(D)>
struct destroyer {
  void operator()(D d) const { (void)destroy(d); }
};
}  // namespace cudnn_detail

// Owned descriptors; made by the make_* functions below.
using tensor_descriptor =
    std::unique_ptr<cudnnTensorStruct,
                    cudnn_detail::destroyer<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>>;
using filter_descriptor =
    std::unique_ptr<cudnnFilterStruct,
                    cudnn_detail::destroyer<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>>;
using convolution_descriptor = std::unique_ptr<
    cudnnConvolutionStruct,
    cudnn_detail::destroyer<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>>;
using pooling_descriptor =
    std::unique_ptr<cudnnPoolingStruct, cudnn_detail::destroyer<cudnnPoolingDescriptor_t,
                                                                cudnnDestroyPoolingDescriptor>>;

// A float32 NHWC batch.
status_or<tensor_descriptor> make_tensor_descriptor(const nhwc_dims& d);
// A float32 filter of out_depth x rows x cols x in_depth, stored in that order (cuDNN's KRSC,
// which it calls NHWC); caflow's HWIO filters are transposed to it first.
status_or<filter_descriptor> make_filter_descriptor(int64_t out_depth, int64_t rows, int64_t cols,
                                                    int64_t in_depth);

// A cross-correlation (TensorFlow's "convolution") with these symmetric pads and strides.
status_or<convolution_descriptor> make_convolution_descriptor(int64_t pad_rows, int64_t pad_cols,
                                                              int64_t stride_rows,
                                                              int64_t stride_cols);
// A window of window_rows x window_cols with these symmetric pads and strides.
status_or<pooling_descriptor> make_pooling_descriptor(cudnnPoolingMode_t mode, int64_t window_rows,
                                                      int64_t window_cols, int64_t pad_rows,
                                                      int64_t pad_cols, int64_t stride_rows,
                                                      int64_t stride_cols);

// An error unless every dimension and element count of these batches fits cuDNN's int32
// sizes.
status check_cudnn_sizes(std::initializer_list<nhwc_dims> batches);

// Scratch of `bytes` from the GPU's allocator, released (stream-ordered) when dropped.
status_or<tensor> allocate_scratch(gpu_device& g, size_t bytes);

// The input laid into cuDNN's frame (plan.padded) with `fill` around it, or `input` itself
// when the plan needs no copy.
status_or<tensor> padded_input(gpu_device& g, const tensor& input, const window_plan& plan,
                               float fill);
// A gradient with respect to the input over cuDNN's frame: `out` itself when the plan needs no
// copy, else scratch of the frame's shape, which crop_from_frame then copies into `out`.
status_or<tensor> gradient_frame(gpu_device& g, const window_plan& plan, const tensor& out);
void crop_from_frame(gpu_device& g, const window_plan& plan, const tensor& frame, tensor& out);
// Fills `t` with zeros on the compute stream (a gradient no window touched).
status fill_zeros(gpu_device& g, tensor& t);

// One convolution as cuDNN sees it. The three convolution ops share these: the forward pass
// reads x and w and writes y; backward data reads w and dy (y's shape) and writes dx (x's);
// backward filter reads x and dy and writes dw (w's).
struct conv_descriptors {
  tensor_descriptor x, y;
  filter_descriptor w;
  convolution_descriptor conv;
};

}  // namespace caflow::gpu
