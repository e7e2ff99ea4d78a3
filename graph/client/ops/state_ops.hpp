#pragma once
// Variables: state that persists across steps on the device that owns it, reached through
// Ref(T) edges (TensorFlow 1.x reference variables).
#include <optional>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct variable_attrs {
  std::string container;
  std::string shared_name;  // empty: the node's name
  // A partitioned variable's shard only: {full variable name, the shard's shape_and_slice},
  // stored as attr "_save_slice_info" (graph/ir/tensor_slice.hpp); empty for others.
  std::vector<std::string> save_slice_info = {};
};
// A Ref(T) output; reading it (any non-ref consumer) takes the current value.
output variable(const scope& s, const partial_shape& shape, dtype type,
                const variable_attrs& attrs = {});

struct assign_attrs {
  bool validate_shape = true;
  bool use_locking = true;
};
output assign(const scope& s, const output& ref, const output& value, const assign_attrs& attrs = {});
output assign_add(const scope& s, const output& ref, const output& value);
output assign_sub(const scope& s, const output& ref, const output& value);
output is_variable_initialized(const scope& s, const output& ref);

// Sparse updates of a variable's rows: row indices[j...] of ref is combined with
// updates[j..., ...] (updates is indices.shape + ref.shape[1:], or a scalar for every row).
// Indices (int32 or int64) must lie in [0, ref.shape[0]); one out of range fails the step and
// leaves the variable unchanged. Repeated indices apply in order: ScatterUpdate's last write
// wins, ScatterAdd/Sub/Mul/Div accumulate, ScatterMin/Max keep the least/greatest. Each returns
// ref. ScatterDiv takes float32 and float64 only.
struct scatter_attrs {
  std::optional<bool> use_locking;  // unset: TF's default (true for ScatterUpdate, else false)
};
output scatter_update(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_attrs& attrs = {});
output scatter_add(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});
output scatter_sub(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});
output scatter_mul(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});
output scatter_div(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});
output scatter_min(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});
output scatter_max(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs = {});

}  // namespace caflow::ops
