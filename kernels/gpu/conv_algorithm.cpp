#include "kernels/gpu/conv_algorithm.hpp"

#include <algorithm>

#include "devices/gpu/cuda_status.hpp"

namespace caflow::gpu {
namespace {

// The most scratch a search may use. Algorithms needing more (some FFT variants on big layers)
// are skipped rather than crowding out the tensors.
constexpr size_t max_search_scratch = size_t{512} << 20;

status workspace_size(cudnnHandle_t h, const conv_descriptors& d, cudnnConvolutionFwdAlgo_t algo,
                      size_t* bytes) {
  return cudnn_status(cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(),
                                                              d.y.get(), algo, bytes),
                      "cudnnGetConvolutionForwardWorkspaceSize");
}
status workspace_size(cudnnHandle_t h, const conv_descriptors& d,
                      cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
  return cudnn_status(cudnnGetConvolutionBackwardDataWorkspaceSize(
                          h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo, bytes),
                      "cudnnGetConvolutionBackwardDataWorkspaceSize");
}
status workspace_size(cudnnHandle_t h, const conv_descriptors& d,
                      cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
  return cudnn_status(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                          h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo, bytes),
                      "cudnnGetConvolutionBackwardFilterWorkspaceSize");
}

// Scratch for the search: what the hungriest algorithm (up to the cap) asks for, or less when
// the allocator cannot give it; algorithms needing more than the search got are skipped by
// cuDNN. An empty tensor when none is needed or none could be had.
template <class Algo>
tensor search_scratch(gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, int algo_count) {
  size_t want = 0;
  for (int a = 0; a < algo_count; ++a) {
    size_t bytes = 0;
    if (workspace_size(h, d, static_cast<Algo>(a), &bytes).ok()) want = std::max(want, bytes);
  }
  for (size_t bytes = std::min(want, max_search_scratch); bytes > 0; bytes /= 4) {
    auto t = allocate_scratch(g, bytes);
    if (t.ok()) return std::move(t).value();
  }
  return tensor();
}

bool uses_tensor_cores(cudnnMathType_t m) {
  return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// The fastest of cuDNN's ranked results that ran without tensor cores. It runs under d.conv's
// FMA math whatever math type cuDNN reports (the default would allow TF32 on Ampere and later).
template <class Algo, class Perf>
status_or<measured_algorithm<Algo>> fastest(cudnnHandle_t h, const conv_descriptors& d,
                                            const Perf* perf, int count, const char* what) {
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || uses_tensor_cores(perf[i].mathType)) continue;
    measured_algorithm<Algo> m{perf[i].algo, 0, perf[i].time};
    // The search's figure is the scratch it used; ask for the exact need under this math type.
    if (!workspace_size(h, d, m.algo, &m.workspace_bytes).ok()) continue;
    return m;
  }
  return errors::unimplemented("cuDNN has no full-precision ", what,
                               " algorithm for these shapes (", count, " tried)");
}

// Searches with FMA math set: cuDNN then leaves out the TF32 tensor-core kernels.
status fma_math(const conv_descriptors& d) {
  return cudnn_status(cudnnSetConvolutionMathType(d.conv.get(), CUDNN_FMA_MATH),
                      "cudnnSetConvolutionMathType");
}

size_t bytes_of(const tensor& t) { return t.initialized() ? t.byte_size() : 0; }
void* data_of(const tensor& t) { return t.initialized() ? t.raw_data() : nullptr; }

}  // namespace

status_or<measured_algorithm<cudnnConvolutionFwdAlgo_t>> measure_forward(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* x, const float* w,
    float* y) {
  using algo = cudnnConvolutionFwdAlgo_t;
  CAFLOW_RETURN_IF_ERROR(fma_math(d));
  const tensor scratch = search_scratch<algo>(g, h, d, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int count = 0;
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), x, d.w.get(), w, d.conv.get(), d.y.get(),
                                             y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf,
                                             data_of(scratch), bytes_of(scratch)),
      "cudnnFindConvolutionForwardAlgorithmEx"));
  return fastest<algo>(h, d, perf, count, "forward convolution");
}

status_or<measured_algorithm<cudnnConvolutionBwdDataAlgo_t>> measure_backward_data(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* w, const float* dy,
    float* dx) {
  using algo = cudnnConvolutionBwdDataAlgo_t;
  CAFLOW_RETURN_IF_ERROR(fma_math(d));
  const tensor scratch = search_scratch<algo>(g, h, d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int count = 0;
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnFindConvolutionBackwardDataAlgorithmEx(
          h, d.w.get(), w, d.y.get(), dy, d.conv.get(), d.x.get(), dx,
          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf, data_of(scratch), bytes_of(scratch)),
      "cudnnFindConvolutionBackwardDataAlgorithmEx"));
  return fastest<algo>(h, d, perf, count, "backward-data convolution");
}

status_or<measured_algorithm<cudnnConvolutionBwdFilterAlgo_t>> measure_backward_filter(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* x, const float* dy,
    float* dw) {
  using algo = cudnnConvolutionBwdFilterAlgo_t;
  CAFLOW_RETURN_IF_ERROR(fma_math(d));
  const tensor scratch = search_scratch<algo>(g, h, d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int count = 0;
  CAFLOW_RETURN_IF_ERROR(cudnn_status(
      cudnnFindConvolutionBackwardFilterAlgorithmEx(
          h, d.x.get(), x, d.y.get(), dy, d.conv.get(), d.w.get(), dw,
          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf, data_of(scratch),
          bytes_of(scratch)),
      "cudnnFindConvolutionBackwardFilterAlgorithmEx"));
  return fastest<algo>(h, d, perf, count, "backward-filter convolution");
}

}  // namespace caflow::gpu
