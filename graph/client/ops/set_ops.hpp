#pragma once
// Counting and set operations on vectors, with TensorFlow's names and semantics: ListDiff (the
// elements of x missing from y), UniqueWithCounts and Bincount.
//
//   auto d = ops::list_diff(root, x, y);        // {out, idx}: x = [1, 2, 3, 4], y = [2, 4] ->
//                                               // out [1, 3], idx [0, 2]
//   auto h = ops::bincount(root, labels, n, w); // per value, the sum of its weights
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// ListDiff: {out, idx} with out the elements of the vector x that are not in the vector y, in
// x's order (repeats kept), and idx their positions in x (int32 or int64, out_idx).
std::vector<output> list_diff(const scope& s, const output& x, const output& y,
                              dtype out_idx = dtype::int32);

// UniqueWithCounts: Unique's {y, idx} and count[i], the number of times y[i] occurs in x.
std::vector<output> unique_with_counts(const scope& s, const output& x,
                                       dtype out_idx = dtype::int32);

// Bincount: for the non-negative int32 values of `arr`, bins[v] = the number of times v occurs
// (or the sum of the matching `weights`, a tensor shaped like arr, when weights is non-empty),
// for v in [0, size); values >= size are ignored.
output bincount(const scope& s, const output& arr, const output& size, const output& weights);

}  // namespace caflow::ops
