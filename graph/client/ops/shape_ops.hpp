#pragma once
// Ops that describe, reshape or construct arrays, with TensorFlow's names and semantics:
// Reshape, Shape, Size, Rank, ExpandDims, Squeeze (metadata: the outputs share the input's
// bytes), Fill, ZerosLike, OnesLike, Range, OneHot, Pack and Unpack.
//
//   auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3}});
//   auto flat = ops::reshape(root, x, {-1});              // [6], sharing x's bytes
//   auto rows = ops::unpack(root, x, 2);                  // two [3] tensors
//   auto both = ops::pack(root, rows, {.axis = 1});       // [3, 2]
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// `shape` is an int32 or int64 vector; one entry may be -1.
output reshape(const scope& s, const output& x, const output& shape);
// Same, with the shape as an int64 Const.
output reshape(const scope& s, const output& x, const std::vector<int64_t>& dims);
// Makes `reshape(s, x, {0, -1})` unambiguous: a braced list starting with 0 could also
// initialize an `output`.
inline output reshape(const scope& s, const output& x, std::initializer_list<int64_t> dims) {
  return reshape(s, x, std::vector<int64_t>(dims));
}

struct shape_attrs {
  dtype out_type = dtype::int32;  // int32 or int64
};
output shape(const scope& s, const output& input, const shape_attrs& attrs = {});

struct size_attrs {
  dtype out_type = dtype::int32;  // int32 or int64
};
output size(const scope& s, const output& input, const size_attrs& attrs = {});
output rank(const scope& s, const output& input);

// A tensor of shape `dims` (an int32 or int64 vector) with every element the scalar `value`.
output fill(const scope& s, const output& dims, const output& value);
output zeros_like(const scope& s, const output& x);
output ones_like(const scope& s, const output& x);

// Inserts a dimension of 1 at `axis` (an int32 or int64 scalar); negative counts from the end.
output expand_dims(const scope& s, const output& input, const output& axis);
output expand_dims(const scope& s, const output& input, int64_t axis);

struct squeeze_attrs {
  std::vector<int64_t> axes;  // empty: every dimension of size 1
};
output squeeze(const scope& s, const output& input, const squeeze_attrs& attrs = {});

// [start, start + delta, ...) up to `limit` (exclusive); all three scalars of one dtype.
output range(const scope& s, const output& start, const output& limit, const output& delta);

struct one_hot_attrs {
  int64_t axis = -1;  // where the new dimension of size depth goes; -1: last
};
output one_hot(const scope& s, const output& indices, const output& depth, const output& on_value,
               const output& off_value, const one_hot_attrs& attrs = {});

struct pack_attrs {
  int64_t axis = 0;
};
// Stacks equally shaped tensors along a new dimension `axis`.
output pack(const scope& s, const std::vector<output>& values, const pack_attrs& attrs = {});

struct unpack_attrs {
  int64_t axis = 0;
};
// Splits `value` along `axis` into `num` tensors; `num` must equal that dimension's size.
std::vector<output> unpack(const scope& s, const output& value, int64_t num,
                           const unpack_attrs& attrs = {});

}  // namespace caflow::ops
