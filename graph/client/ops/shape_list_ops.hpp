#pragma once
// Shape arithmetic over lists of tensors, with TensorFlow's names and semantics: ShapeN (the
// shapes of several tensors in one node) and ConcatOffset (where each input of a concat starts
// in the output: what TensorFlow's own ConcatV2 gradient uses).
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// ShapeN: the shape of each input, as int32 (or int64) vectors.
std::vector<output> shape_n(const scope& s, const std::vector<output>& inputs,
                            dtype out_type = dtype::int32);

// ConcatOffset: for int32 shape vectors `shapes` (equal except along concat_dim), the offset of
// each in their concatenation along concat_dim (an int32 scalar): zeros except at concat_dim.
std::vector<output> concat_offset(const scope& s, const output& concat_dim,
                                  const std::vector<output>& shapes);

}  // namespace caflow::ops
