#pragma once
// A plain VariableV2 for kernel tests: its reference, an initializer assigning `value`, and a
// reader (Identity) of its current value.
#include <string>

#include "graph/client/ops/ops.hpp"

namespace caflow::testing {

struct test_var {
  output ref, init, read;
};

inline test_var make_var(const scope& root, const std::string& name, const tensor& value,
                         const partial_shape& declared) {
  auto ref = ops::variable(root.with_op_name(name), declared, value.type());
  auto init = ops::assign(root.with_op_name(name + "/init"), ref, ops::constant(root, value));
  auto read = ops::identity(root.with_op_name(name + "/read"), ref);
  return {ref, init, read};
}
inline test_var make_var(const scope& root, const std::string& name, const tensor& value) {
  return make_var(root, name, value, value.shape());
}

}  // namespace caflow::testing
