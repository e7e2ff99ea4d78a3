#pragma once
// What the cuDNN convolution and pooling kernels share: owned descriptors, copies of the input
// padded as window_plan.hpp says, algorithm choice, and scratch memory from the GPU's
// allocator.
#include <array>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

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

// One algorithm cuDNN offers for a convolution, in its order of preference.
template <class Algo>
struct conv_algorithm {
  Algo algo;
  cudnnMathType_t math;
};

// The candidates of cuDNN's heuristics that work for these descriptors, full-precision FMA
// ones first: TF32 tensor cores are used only when cuDNN offers nothing else, so results
// agree with the CPU kernels and cuBLAS's MatMul (which uses no TF32) to float32 rounding.
status_or<std::vector<conv_algorithm<cudnnConvolutionFwdAlgo_t>>> forward_algorithms(
    cudnnHandle_t h, const conv_descriptors& d);
status_or<std::vector<conv_algorithm<cudnnConvolutionBwdDataAlgo_t>>> backward_data_algorithms(
    cudnnHandle_t h, const conv_descriptors& d);
status_or<std::vector<conv_algorithm<cudnnConvolutionBwdFilterAlgo_t>>> backward_filter_algorithms(
    cudnnHandle_t h, const conv_descriptors& d);

// A kernel's memo of the candidates for each geometry it has run (most kernels see one or
// two); asking cuDNN's heuristics costs more than the launches of a small convolution.
template <class Algo>
class algorithm_cache {
 public:
  // The cached candidates for `g`, else find() (returning status_or<vector<...>>), cached
  // when it succeeds. Thread-safe.
  template <class Find>
  status_or<std::vector<conv_algorithm<Algo>>> get(const conv2d_geometry& g, Find&& find) {
    const key k = key_of(g);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [entry_key, candidates] : entries_)
        if (entry_key == k) return candidates;
    }
    auto found = find();
    if (!found.ok()) return found;
    std::lock_guard<std::mutex> lock(mu_);
    // Shapes that change every step would grow the memo without bound; keep the newest.
    if (entries_.size() >= max_entries) entries_.erase(entries_.begin());
    entries_.emplace_back(k, *found);
    return found;
  }

 private:
  using key = std::array<int64_t, 13>;
  static constexpr size_t max_entries = 16;
  static key key_of(const conv2d_geometry& g) {
    return {g.batch,       g.in_rows,   g.in_cols,  g.in_depth, g.filter_rows,
            g.filter_cols, g.out_depth, g.out_rows, g.out_cols, g.stride_rows,
            g.stride_cols, g.pad_top,   g.pad_left};
  }

  std::mutex mu_;
  std::vector<std::pair<key, std::vector<conv_algorithm<Algo>>>> entries_;
};

// The first candidate whose workspace the allocator can give, with that workspace; d.conv is
// left set to the candidate's math type.
template <class Algo>
struct chosen_algorithm {
  Algo algo;
  tensor workspace;  // uninitialized when no workspace is needed
  size_t workspace_bytes = 0;
  void* workspace_data() const { return workspace.initialized() ? workspace.raw_data() : nullptr; }
};
template <class Algo>
status_or<chosen_algorithm<Algo>> choose_algorithm(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d,
    const std::vector<conv_algorithm<Algo>>& candidates);

}  // namespace caflow::gpu
