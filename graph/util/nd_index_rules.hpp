#pragma once
// The shapes of GatherNd and ScatterNd, shared by their shape functions
// (graph/ops/nd_index_ops.cpp) and kernels (kernels/cpu/nd_index_kernels.cpp). Errors
// carry no node name: callers add it.
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

#include <vector>

namespace caflow {

// GatherNd: indices [..., K] index the first K dims of params; the output is
// indices.shape[:-1] + params.shape[K:]. Unknown dims (-1) stay unknown.
status_or<partial_shape> gather_nd_shape(const partial_shape& params,
                                         const partial_shape& indices);

// ScatterNd: updates must be indices.shape[:-1] + shape[K:]; checks what is known.
status check_scatter_nd(const partial_shape& indices, const partial_shape& updates,
                        const partial_shape& shape);

// The row-major offsets, in slices of shape[K:], that the index tuples of `indices`
// (int32 or int64, [..., K], K <= rank of shape) name in `shape`; the error names the first
// tuple out of range.
status_or<std::vector<int64_t>> nd_slice_offsets(const tensor& indices, const tensor_shape& shape);

}  // namespace caflow
