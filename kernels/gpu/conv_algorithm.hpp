#pragma once
// Choosing a cuDNN convolution algorithm by measurement: cudnnFind*AlgorithmEx runs every
// algorithm that fits the scratch it is given on the kernel's own buffers and ranks them by
// time, which is what PyTorch's cudnn.benchmark does. The heuristics' first pick was measured at
// half PyTorch's speed on an H200 (a generic engine), so the ~tens of ms a search costs are paid
// once per shape and kernel (see plan_cache.hpp).
//
// Only full-precision algorithms are chosen (FMA math, no TF32 tensor cores), so results agree
// with the CPU kernels and with cuBLAS's MatMul to float32 rounding. cuDNN's backend engines
// (conv_engine.hpp) are the second source; the kernels time both and keep the faster.
#include "kernels/gpu/cudnn_support.hpp"

namespace caflow::gpu {

template <class Algo>
struct measured_algorithm {
  Algo algo{};
  size_t workspace_bytes = 0;  // exactly what `algo` needs under d.conv's math type
  float ms = 0;                // as cuDNN measured it
};

// Each runs the search on the handle's stream (after the work already queued there, which
// produces the inputs) and blocks the host until it is done. The output buffer is overwritten.
// On success d.conv's math type is the chosen algorithm's. REQUIRES the caller to hold the
// handle's lease.
status_or<measured_algorithm<cudnnConvolutionFwdAlgo_t>> measure_forward(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* x, const float* w,
    float* y);
status_or<measured_algorithm<cudnnConvolutionBwdDataAlgo_t>> measure_backward_data(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* w, const float* dy,
    float* dx);
status_or<measured_algorithm<cudnnConvolutionBwdFilterAlgo_t>> measure_backward_filter(
    gpu_device& g, cudnnHandle_t h, const conv_descriptors& d, const float* x, const float* dy,
    float* dw);

}  // namespace caflow::gpu
