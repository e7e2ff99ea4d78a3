#pragma once
// Variables: state that persists across steps on the device that owns it, reached through
// Ref(T) edges (TensorFlow 1.x reference variables).
#include "graph/client/scope.hpp"

namespace caflow::ops {

struct variable_attrs {
  std::string container;
  std::string shared_name;  // empty: the node's name
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

}  // namespace caflow::ops
