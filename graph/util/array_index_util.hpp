#pragma once
// Index arithmetic shared by the array ops' shape functions (graph/ops/array_ops.cpp,
// graph/ops/slicing_ops.cpp) and their CPU kernels (kernels/cpu/*), so graph construction
// and run time apply one set of rules and word their errors alike. Errors here carry no node
// name: callers add it.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// The elements of an int32 or int64 tensor, widened to int64. REQUIRES: t is int32 or int64.
std::vector<int64_t> index_values(const tensor& t);

// Maps `axis` in [-rank, rank) to [0, rank); the error names `what`, the axis and the range.
status_or<int> canonical_axis(int64_t axis, int rank, const char* what);

// OK when `perm` holds each of 0..rank-1 exactly once.
status check_permutation(const std::vector<int64_t>& perm, int rank);

struct strided_slice_masks {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

// StridedSlice's begin/end/strides resolved against an input shape the way TensorFlow's
// ValidateStridedSliceOp does it: the ellipsis (explicit, or implied at the end) expanded,
// new axes inserted, negative indices wrapped, masked bounds replaced by the dimension's ends
// and other bounds clamped into it.
struct strided_slice_spec {
  // Per input dimension: the first index read, the step, and how many elements are read
  // (-1 when unknown at graph construction).
  std::vector<int64_t> begin, strides, counts;
  // The output shape: `counts` without the shrunk dimensions, with the new axes inserted.
  partial_shape final_shape;
};

// `input` must have a known rank; its dims may be unknown (-1). `begin` and `end` may be
// null while their values are unknown (graph construction); then only what the masks and
// strides determine is known. A second ellipsis bit is `unimplemented`, naming the mask.
status_or<strided_slice_spec> resolve_strided_slice(const partial_shape& input,
                                                    const std::vector<int64_t>* begin,
                                                    const std::vector<int64_t>* end,
                                                    const std::vector<int64_t>& strides,
                                                    const strided_slice_masks& masks);

}  // namespace caflow
