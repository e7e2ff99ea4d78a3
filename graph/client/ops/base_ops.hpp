#pragma once
// Constants, placeholders, identity, grouping, and the call-frame ops a session uses.
#include "graph/client/scope.hpp"

namespace caflow::ops {

output constant(const scope& s, const tensor& value);
template <class T>
output constant(const scope& s, T value) {
  return constant(s, tensor::scalar<T>(value));
}
template <class T>
output constant(const scope& s, const std::vector<T>& values, const tensor_shape& shape) {
  return constant(s, tensor::from_vector<T>(values, shape));
}
// A string constant (dtype string): a tag, a file name, a checkpoint key.
inline output string_constant(const scope& s, std::string_view value) {
  return constant(s, tensor::string_scalar(value));
}
inline output string_constant(const scope& s, const std::vector<std::string>& values,
                              const tensor_shape& shape) {
  return constant(s, tensor::from_strings(values, shape));
}

struct placeholder_attrs {
  partial_shape shape = partial_shape::unknown();
};
output placeholder(const scope& s, dtype type, const placeholder_attrs& attrs = {});
output placeholder_with_default(const scope& s, const output& input, const partial_shape& shape);
output identity(const scope& s, const output& input);
operation no_op(const scope& s);
// A NoOp that runs after every given op: the usual way to name a training step.
operation group(const scope& s, const std::vector<operation>& ops);

}  // namespace caflow::ops
