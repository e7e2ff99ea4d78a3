#pragma once
// What StridedSlice reads and StridedSliceGrad writes: the slice resolved against a concrete
// input shape by the same rules as the shape function (graph/util/array_index_util.hpp), as
// one strided pattern over the input's elements. Both kernels build it with one call, so a
// slice and its gradient always touch the same elements.
#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"

namespace caflow::array_kernels {

// The five mask attrs of a StridedSlice-like node.
status read_strided_slice_masks(const kernel_construction& c, strided_slice_masks* masks);

struct strided_slice_plan {
  tensor_shape final_shape;  // the slice's shape (StridedSlice's output, StridedSliceGrad's dy)
  int64_t base = 0;          // element offset in the input of the first element read
  // Slice element k (row-major in final_shape order) is input element base + offset(k).
  strided_layout layout;
};

// Validates begin, end and strides (int32/int64 vectors of one length) and resolves them
// against `input`; errors say which argument is wrong and why.
status_or<strided_slice_plan> plan_strided_slice(const tensor_shape& input, const tensor& begin,
                                                 const tensor& end, const tensor& strides,
                                                 const strided_slice_masks& masks);

// The inverse of copy_strided: element k of the dense `src` goes to dst[offset(k)]
// (`dst` already offset by the plan's base). The layout's elements are distinct, so the
// writes never overlap; large scatters run on the intra-op pool.
void scatter_strided(const kernel_context& ctx, const strided_layout& layout, const void* src,
                     void* dst, size_t elem_size);

}  // namespace caflow::array_kernels
