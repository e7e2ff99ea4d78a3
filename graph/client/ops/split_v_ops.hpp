#pragma once
// SplitV, with TensorFlow's name and semantics: pieces of given sizes along one dimension.
//
//   auto parts = ops::split_v(root, x, {2, -1}, /*axis=*/1);   // x[:, :2] and x[:, 2:]
#include <cstdint>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// `size_splits` (int32 or int64 vector, one -1 allowed for the rest) along `axis` (an int32
// scalar, negative counting from the end); one output per size.
std::vector<output> split_v(const scope& s, const output& value, const output& size_splits,
                            const output& axis, int num_split);
std::vector<output> split_v(const scope& s, const output& value,
                            const std::vector<int64_t>& size_splits, int axis);

}  // namespace caflow::ops
