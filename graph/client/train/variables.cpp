#include "graph/client/train/variables.hpp"

#include <algorithm>

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/state_ops.hpp"

namespace caflow::train {

namespace detail {

std::string local_name(std::string_view full, std::string_view requested) {
  const std::string with_slash = "/" + std::string(requested);
  if (full == requested || full.ends_with(with_slash)) return std::string(requested);
  // Made unique as "<prefix><requested>_<n>".
  const size_t underscore = full.rfind('_');
  if (underscore == std::string_view::npos) return std::string(requested);
  return std::string(requested) + std::string(full.substr(underscore));
}

}  // namespace detail

variable create_variable(const scope& s, std::string_view name, const output& initial_value,
                         const variable_attrs& attrs) {
  if (!s.ok()) return {};
  if (!initial_value.valid()) {
    s.update_status(errors::invalid_argument(
        "variable '", name, "': the initial value is an invalid output (from a failed op?)"));
    return {};
  }
  partial_shape shape = partial_shape::unknown();
  if (attrs.validate_shape) {
    shape = s.shape_of(initial_value);
    if (!shape.fully_defined()) {
      s.update_status(errors::invalid_argument(
          "variable '", name, "': the initial value '", initial_value.name(), "' has shape ",
          shape.to_string(), "; a variable needs a fully known shape, or validate_shape = false"));
      return {};
    }
  }
  variable v;
  v.ref = ops::variable(s.with_op_name(name), shape, initial_value.type,
                        {.container = attrs.container,
                         .shared_name = attrs.shared_name,
                         .save_slice_info = attrs.save_slice_info});
  if (!v.ref.valid()) return {};
  const std::string local = detail::local_name(v.ref.node, name);
  const output assign = ops::assign(s.with_op_name(local + "/Assign"), v.ref, initial_value,
                                    {.validate_shape = attrs.validate_shape});
  if (!assign.valid()) return {};
  v.initial_value = initial_value;
  v.initializer = operation{assign.node, {assign.type}};
  v.trainable = attrs.trainable;
  return v;
}

variable create_variable(const scope& s, std::string_view name, const tensor_shape& shape,
                         dtype type, const initializer& init, const variable_attrs& attrs) {
  if (!s.ok()) return {};
  // The variable first, so that its initializer can be named after the name it got.
  variable v;
  v.ref = ops::variable(s.with_op_name(name), shape, type,
                        {.container = attrs.container,
                         .shared_name = attrs.shared_name,
                         .save_slice_info = attrs.save_slice_info});
  if (!v.ref.valid()) return {};
  const std::string local = detail::local_name(v.ref.node, name);
  // Colocated with the variable, as TF's initializers from a function are: a large table is
  // filled on its ps task instead of being made on the worker and sent over.
  v.initial_value = init(
      s.new_sub_scope(local + "/Initializer").with_device("").colocate_with(v.ref), shape, type);
  if (!s.ok()) return {};
  if (!v.initial_value.valid() || v.initial_value.type != type) {
    s.update_status(errors::invalid_argument(
        "variable '", v.ref.node, "': the initializer gave ",
        v.initial_value.valid() ? dtype_name(v.initial_value.type) : "an invalid output",
        ", expected ", dtype_name(type)));
    return {};
  }
  const output assign = ops::assign(s.with_op_name(local + "/Assign"), v.ref, v.initial_value,
                                    {.validate_shape = attrs.validate_shape});
  if (!assign.valid()) return {};
  v.initializer = operation{assign.node, {assign.type}};
  v.trainable = attrs.trainable;
  return v;
}

variable_set::variable_set(std::initializer_list<variable> vars) {
  for (const variable& v : vars) add(v);
}

variable_set::variable_set(const std::vector<variable>& vars) { add(vars); }

void variable_set::add(const variable& v) {
  const bool known = std::any_of(vars_.begin(), vars_.end(),
                                 [&](const variable& w) { return w.name() == v.name(); });
  if (!known) vars_.push_back(v);
}

void variable_set::add(const std::vector<variable>& vs) {
  for (const variable& v : vs) add(v);
}

std::vector<variable> variable_set::trainable() const {
  std::vector<variable> out;
  for (const variable& v : vars_)
    if (v.trainable) out.push_back(v);
  return out;
}

operation global_variables_initializer(const scope& s, const variable_set& vars) {
  node_builder b(s, "NoOp", "init");
  for (const variable& v : vars.global()) {
    if (!v.initializer.valid()) {
      s.update_status(errors::invalid_argument(
          "global_variables_initializer: variable '", v.name(),
          v.valid() ? "' has no initializer" : "' is invalid (from a failed create_variable?)"));
      return {};
    }
    b.control_input(v.initializer);
  }
  return b.finalize();
}

}  // namespace caflow::train
