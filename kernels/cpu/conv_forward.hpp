#pragma once
// Conv2D's forward pass on the CPU (kernels/cpu/conv_forward_kernel.cpp), shared by Conv2D and
// _FusedConv2D: im2col of a tile of output positions, one product into those output rows, then
// the epilogue (kernels/cpu/fused_epilogue.hpp), if any, on the same rows while in cache.
#include "graph/util/conv_geometry.hpp"
#include "kernels/cpu/fused_epilogue.hpp"

namespace caflow::conv {

// REQUIRES: input and filter have the shapes `g` was resolved from; `out` is allocated with
// g.output_shape(); `epilogue` (may be null) has g.out_depth channels. Errors (scratch
// allocation) go to ctx.
template <class T>
void conv2d_forward(kernel_context& ctx, const conv2d_geometry& g, const tensor& input,
                    const tensor& filter, tensor& out, const channel_epilogue<T>* epilogue);

extern template void conv2d_forward<float>(kernel_context&, const conv2d_geometry&,
                                           const tensor&, const tensor&, tensor&,
                                           const channel_epilogue<float>*);
extern template void conv2d_forward<double>(kernel_context&, const conv2d_geometry&,
                                            const tensor&, const tensor&, tensor&,
                                            const channel_epilogue<double>*);

}  // namespace caflow::conv
