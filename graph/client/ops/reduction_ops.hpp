#pragma once
// Reductions (Sum, Mean, Max, Min, Prod, All, Any) and ArgMax/ArgMin, with TensorFlow's semantics:
//
//   auto total = ops::sum(s, x, {0, -1});                    // reduce the first and last dims
//   auto avg = ops::mean(s, x, axis, {.keep_dims = true});   // axes from a graph tensor
//   auto best = ops::arg_max(s, logits, 1);                  // int64 indices
//
// Axes may be a scalar or a vector; negative axes count from the end; an empty vector reduces
// nothing. Reducing over an empty dim gives the reducer's identity (0, 1, -inf, +inf; NaN for
// the Mean of floats).
#include <bitset>
#include <initializer_list>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct reduce_attrs {
  bool keep_dims = false;  // keep reduced dims with size 1
};

// Each reduction takes its axes as a graph tensor, a vector, or a braced list ({0, 2}); the
// last two become an int32 Const. An empty list reduces nothing.
output sum(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs = {});
output sum(const scope& s, const output& input, const std::vector<int>& axis,
           const reduce_attrs& attrs = {});
output sum(const scope& s, const output& input, std::initializer_list<int> axis,
           const reduce_attrs& attrs = {});
output mean(const scope& s, const output& input, const output& axis,
            const reduce_attrs& attrs = {});
output mean(const scope& s, const output& input, const std::vector<int>& axis,
            const reduce_attrs& attrs = {});
output mean(const scope& s, const output& input, std::initializer_list<int> axis,
            const reduce_attrs& attrs = {});
output max(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs = {});
output max(const scope& s, const output& input, const std::vector<int>& axis,
           const reduce_attrs& attrs = {});
output max(const scope& s, const output& input, std::initializer_list<int> axis,
           const reduce_attrs& attrs = {});
output min(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs = {});
output min(const scope& s, const output& input, const std::vector<int>& axis,
           const reduce_attrs& attrs = {});
output min(const scope& s, const output& input, std::initializer_list<int> axis,
           const reduce_attrs& attrs = {});
output prod(const scope& s, const output& input, const output& axis,
            const reduce_attrs& attrs = {});
output prod(const scope& s, const output& input, const std::vector<int>& axis,
            const reduce_attrs& attrs = {});
output prod(const scope& s, const output& input, std::initializer_list<int> axis,
            const reduce_attrs& attrs = {});

// Logical AND / OR of bools over the axes (true / false over an empty dim).
output all(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs = {});
output all(const scope& s, const output& input, const std::vector<int>& axis,
           const reduce_attrs& attrs = {});
output all(const scope& s, const output& input, std::initializer_list<int> axis,
           const reduce_attrs& attrs = {});
output any(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs = {});
output any(const scope& s, const output& input, const std::vector<int>& axis,
           const reduce_attrs& attrs = {});
output any(const scope& s, const output& input, std::initializer_list<int> axis,
           const reduce_attrs& attrs = {});

struct arg_max_attrs {
  dtype output_type = dtype::int64;  // int32 or int64
};
using arg_min_attrs = arg_max_attrs;

// The index of the largest (smallest) value along `dimension`; ties give the smallest index
// and a NaN counts as larger (smaller) than every number.
output arg_max(const scope& s, const output& input, const output& dimension,
               const arg_max_attrs& attrs = {});
output arg_max(const scope& s, const output& input, int dimension, const arg_max_attrs& attrs = {});
output arg_min(const scope& s, const output& input, const output& dimension,
               const arg_min_attrs& attrs = {});
output arg_min(const scope& s, const output& input, int dimension, const arg_min_attrs& attrs = {});

}  // namespace caflow::ops
