#pragma once
// Reversing, rolling and broadcasting, with TensorFlow's names and semantics: ReverseV2 (and
// the older Reverse), ReverseSequence, Roll and InvertPermutation; BroadcastTo and
// BroadcastArgs. The first two of each
// move data of any dtype; the others compute on index vectors.
//
//   auto r = ops::reverse(root, x, {1});               // x[:, ::-1]
//   auto b = ops::broadcast_to(root, bias, {4, 3});    // [3] -> [4, 3]
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// ReverseV2: `tensor` with the order of elements reversed along each dimension in `axis` (an
// int32 or int64 vector, negative counting from the end, no dimension twice).
output reverse(const scope& s, const output& tensor, const output& axis);
output reverse(const scope& s, const output& tensor, const std::vector<int64_t>& axis);
inline output reverse(const scope& s, const output& tensor, std::initializer_list<int64_t> axis) {
  return reverse(s, tensor, std::vector<int64_t>(axis));
}

// BroadcastTo: `input` repeated to `shape` (an int32 or int64 vector) by numpy's rules: input's
// dims, aligned at the end, must each be 1 or the target's.
output broadcast_to(const scope& s, const output& input, const output& shape);
output broadcast_to(const scope& s, const output& input, const std::vector<int64_t>& shape);
inline output broadcast_to(const scope& s, const output& input,
                           std::initializer_list<int64_t> shape) {
  return broadcast_to(s, input, std::vector<int64_t>(shape));
}

struct reverse_sequence_attrs {
  int64_t batch_dim = 0;
};
// ReverseSequence: for each b along batch_dim, the first seq_lengths[b] elements along seq_dim
// reversed, the rest kept. seq_lengths is an int32 or int64 vector as long as the batch.
output reverse_sequence(const scope& s, const output& input, const output& seq_lengths,
                        int64_t seq_dim, const reverse_sequence_attrs& attrs = {});

// Reverse (TF's first version): `dims` is a bool vector, one entry per dimension of `tensor`.
output reverse_v1(const scope& s, const output& tensor, const output& dims);

// Roll: elements shifted by shift[i] (wrapping around) along axis[i]; shift and axis are int32
// or int64 scalars or vectors of one length, shifts along one axis add up.
output roll(const scope& s, const output& input, const output& shift, const output& axis);

// InvertPermutation: y[x[i]] = i for a permutation x (int32 or int64 vector) of 0..n-1.
output invert_permutation(const scope& s, const output& x);

// BroadcastArgs: the shape two shapes (int32 or int64 vectors) broadcast to.
output broadcast_args(const scope& s, const output& s0, const output& s1);

}  // namespace caflow::ops
