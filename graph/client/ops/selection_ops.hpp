#pragma once
// Ops that find elements, with TensorFlow's names and semantics: Where (the coordinates of the
// true or non-zero elements), TopKV2 (the k largest entries of each last-dimension row) and
// InTopKV2 (whether each target class is among the k largest predictions).
//
//   auto coords = ops::where(root, mask);               // int64 [n, rank(mask)]
//   auto top = ops::top_k(root, logits, 5);             // {values, int32 indices}
//   auto hit = ops::in_top_k(root, logits, labels, 5);  // bool [batch]
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// Where with one input: an int64 matrix with a row per true (non-zero) element of `condition`,
// holding its coordinates, in row-major order.
output where(const scope& s, const output& condition);

struct top_k_attrs {
  // TensorFlow allows any order when false; the values come sorted either way.
  bool sorted = true;
};
// TopKV2: {values, indices} of the k largest entries along the last dimension of `input`
// (rank >= 1, at least k entries), largest first; equal values keep their order (the lower
// index first). `k` is an int32 scalar.
std::vector<output> top_k(const scope& s, const output& input, const output& k,
                          const top_k_attrs& attrs = {});
std::vector<output> top_k(const scope& s, const output& input, int k,
                          const top_k_attrs& attrs = {});

// InTopKV2: for float32 `predictions` [batch, classes] and `targets` [batch] (int32 or int64),
// whether predictions[i, targets[i]] is among the k largest of row i: fewer than k entries of
// the row are strictly larger. A target out of range or a non-finite prediction gives false.
// `k` is a scalar of targets' dtype.
output in_top_k(const scope& s, const output& predictions, const output& targets,
                const output& k);
output in_top_k(const scope& s, const output& predictions, const output& targets, int64_t k);

}  // namespace caflow::ops
