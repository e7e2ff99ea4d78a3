#pragma once
// Updates of a variable through its reference, with TensorFlow 1.x's names and semantics:
// ScatterNdUpdate, ScatterNdAdd and ScatterNdSub (slices named by coordinate tuples, as
// ScatterNd) and CountUpTo (an integer counter with a limit).
//
//   auto step = ops::count_up_to(root, counter, 1000);  // 0, 1, ..., 999, then OUT_OF_RANGE
#include <optional>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// indices (int32 or int64) [..., K] name slices ref[i_0, .., i_{K-1}] of `ref`; updates is
// indices.shape[:-1] + ref.shape[K:]. An index out of range fails the step and leaves the
// variable unchanged. Repeated tuples apply in order. Each returns ref.
struct scatter_nd_attrs {
  std::optional<bool> use_locking;  // unset: TF's default (true for Update, else false)
};
output scatter_nd_update(const scope& s, const output& ref, const output& indices,
                         const output& updates, const scatter_nd_attrs& attrs = {});
output scatter_nd_add(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_nd_attrs& attrs = {});
output scatter_nd_sub(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_nd_attrs& attrs = {});

// CountUpTo: the value of the int32/int64 scalar variable `ref` before incrementing it; once it
// has reached `limit` the step fails with OUT_OF_RANGE instead.
output count_up_to(const scope& s, const output& ref, int64_t limit);

}  // namespace caflow::ops
