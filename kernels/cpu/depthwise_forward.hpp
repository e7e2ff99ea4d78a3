#pragma once
// DepthwiseConv2dNative's forward pass on the CPU (kernels/cpu/depthwise_conv_kernels.cpp),
// shared with the fused depthwise convolutions: each output pixel's channels are accumulated,
// then the epilogue (kernels/cpu/fused_epilogue.hpp), if any, runs on them while in cache.
#include "graph/util/depthwise_geometry.hpp"
#include "kernels/cpu/fused_epilogue.hpp"

namespace caflow {

// REQUIRES: input and filter have the shapes `g` was resolved from; `out` is allocated with
// g.output_shape(); `epilogue` (may be null) has g.out_depth() channels.
template <class T>
void depthwise_forward(const kernel_context& ctx, const depthwise_geometry& g, const tensor& input,
                       const tensor& filter, tensor& out, const channel_epilogue<T>* epilogue);

extern template void depthwise_forward<float>(const kernel_context&, const depthwise_geometry&,
                                              const tensor&, const tensor&, tensor&,
                                              const channel_epilogue<float>*);
extern template void depthwise_forward<double>(const kernel_context&, const depthwise_geometry&,
                                               const tensor&, const tensor&, tensor&,
                                               const channel_epilogue<double>*);

}  // namespace caflow
