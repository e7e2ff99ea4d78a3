#pragma once
// Transforming and indexing tensors: Transpose, ConcatV2, Split, Slice, StridedSlice (and
// StridedSliceGrad), GatherV2, UnsortedSegmentSum, Tile, Pad, Unique. Index arguments are
// int32 or int64 tensors; the overloads taking C++ integers add them as Const nodes. Each integer
// overload has an initializer_list twin so that a brace list such as {0, 1} picks it rather
// than `output`, an aggregate that some brace lists could also initialize.
//
//   auto t = ops::transpose(root, x, {1, 0});
//   auto col0 = ops::strided_slice(root, x, {0, 0}, {0, 1}, {1, 1},   // x[:, 0]
//                                  {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
//   auto parts = ops::split(root, /*axis=*/0, x, /*num_split=*/2);
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// Output dimension i is input dimension perm[i]; perm is a permutation of 0..rank-1.
output transpose(const scope& s, const output& x, const output& perm);
output transpose(const scope& s, const output& x, const std::vector<int>& perm);
inline output transpose(const scope& s, const output& x, std::initializer_list<int> perm) {
  return transpose(s, x, std::vector<int>(perm));
}

// Joins `values` (at least two, same rank, equal except along axis) along `axis`, which may
// be negative (counted from the end).
output concat(const scope& s, const std::vector<output>& values, const output& axis);
output concat(const scope& s, const std::vector<output>& values, int axis);

// `num_split` equal pieces of `value` along `axis`, which its size must be divisible by.
std::vector<output> split(const scope& s, const output& axis, const output& value, int num_split);
std::vector<output> split(const scope& s, int axis, const output& value, int num_split);

// input[begin[i] : begin[i] + size[i]] in every dimension i; size -1 means "to the end".
output slice(const scope& s, const output& input, const output& begin, const output& size);
output slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& size);
inline output slice(const scope& s, const output& input, std::initializer_list<int64_t> begin,
                    std::initializer_list<int64_t> size) {
  return slice(s, input, std::vector<int64_t>(begin), std::vector<int64_t>(size));
}

// Bit i of a mask refers to entry i of begin/end/strides (TensorFlow's StridedSlice).
struct strided_slice_attrs {
  int64_t begin_mask = 0;        // ignore begin[i]: start at the first (last) element
  int64_t end_mask = 0;          // ignore end[i]: run to the end (the start)
  int64_t ellipsis_mask = 0;     // entry i is "...": all dimensions not addressed otherwise
  int64_t new_axis_mask = 0;     // entry i inserts a dimension of size 1
  int64_t shrink_axis_mask = 0;  // entry i indexes (begin[i]) and removes the dimension
};
output strided_slice(const scope& s, const output& input, const output& begin, const output& end,
                     const output& strides, const strided_slice_attrs& attrs = {});
output strided_slice(const scope& s, const output& input, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     const strided_slice_attrs& attrs = {});
inline output strided_slice(const scope& s, const output& input,
                            std::initializer_list<int64_t> begin,
                            std::initializer_list<int64_t> end,
                            std::initializer_list<int64_t> strides,
                            const strided_slice_attrs& attrs = {}) {
  return strided_slice(s, input, std::vector<int64_t>(begin), std::vector<int64_t>(end),
                       std::vector<int64_t>(strides), attrs);
}

// The gradient of strided_slice(input, begin, end, strides, attrs) for an input of shape
// `shape` (a vector): dy written where the slice read, zeros elsewhere.
output strided_slice_grad(const scope& s, const output& shape, const output& begin,
                          const output& end, const output& strides, const output& dy,
                          const strided_slice_attrs& attrs = {});

struct gather_attrs {
  // The leading batch_dims dims of params and indices are batch dims, gathered pairwise
  // (negative counts from the end of indices' dims); axis must not be less than it.
  int64_t batch_dims = 0;
};
// params[..., indices, ...] with `indices` taking the place of dimension `axis`.
output gather(const scope& s, const output& params, const output& indices, const output& axis,
              const gather_attrs& attrs = {});
output gather(const scope& s, const output& params, const output& indices, int axis = 0,
              const gather_attrs& attrs = {});

// output[i, ...] = sum of data[j..., ...] over the j with segment_ids[j...] == i, for i in
// [0, num_segments); segment_ids' shape is a prefix of data's and negative ids are dropped.
output unsorted_segment_sum(const scope& s, const output& data, const output& segment_ids,
                            const output& num_segments);

// Repeats `input` multiples[i] times along dimension i.
output tile(const scope& s, const output& input, const output& multiples);
output tile(const scope& s, const output& input, const std::vector<int64_t>& multiples);
inline output tile(const scope& s, const output& input, std::initializer_list<int64_t> multiples) {
  return tile(s, input, std::vector<int64_t>(multiples));
}

// Adds paddings[i] = {before, after} zeros around dimension i; `paddings` is [rank, 2].
output pad(const scope& s, const output& input, const output& paddings);
output pad(const scope& s, const output& input,
           const std::vector<std::array<int64_t, 2>>& paddings);
inline output pad(const scope& s, const output& input,
                  std::initializer_list<std::array<int64_t, 2>> paddings) {
  return pad(s, input, std::vector<std::array<int64_t, 2>>(paddings));
}

// Unique: {y, idx} with y the distinct values of the vector x in order of first occurrence
// and x[i] == y[idx[i]]; idx is int32 or int64 (out_idx).
std::vector<output> unique(const scope& s, const output& x, dtype out_idx = dtype::int32);

}  // namespace caflow::ops
