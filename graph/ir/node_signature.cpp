#include "graph/ir/node_signature.hpp"

#include <algorithm>

namespace caflow {
namespace {

template <class T>
status get_typed(const node_def& n, std::string_view name, T* out) {
  auto it = n.attrs.find(std::string(name));
  if (it == n.attrs.end())
    return errors::invalid_argument(describe_node(n), ": attr '", name, "' is missing");
  if (!it->second.holds<T>())
    return errors::invalid_argument(describe_node(n), ": attr '", name, "' has type ",
                                    attr_type_name(it->second.type()), ", expected ",
                                    attr_type_name(attr_value(T{}).type()));
  *out = it->second.get<T>();
  return {};
}

}  // namespace

std::string describe_node(const node_def& n) { return "node '" + n.name + "' (" + n.op + ")"; }

status get_attr(const node_def& n, std::string_view name, int64_t* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, int* out) {
  int64_t v = 0;
  CAFLOW_RETURN_IF_ERROR(get_typed(n, name, &v));
  *out = static_cast<int>(v);
  return {};
}
status get_attr(const node_def& n, std::string_view name, float* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, bool* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::string* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, dtype* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, partial_shape* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, tensor* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<int64_t>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<int>* out) {
  std::vector<int64_t> v;
  CAFLOW_RETURN_IF_ERROR(get_typed(n, name, &v));
  out->assign(v.begin(), v.end());
  return {};
}
status get_attr(const node_def& n, std::string_view name, std::vector<float>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<bool>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<std::string>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<dtype>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<partial_shape>* out) { return get_typed(n, name, out); }
status get_attr(const node_def& n, std::string_view name, std::vector<tensor>* out) { return get_typed(n, name, out); }

void add_default_attrs(const op_def& op, node_def& n) {
  for (const auto& a : op.attrs)
    if (a.default_value && !n.attrs.count(a.name)) n.attrs.emplace(a.name, *a.default_value);
}

status_or<node_signature> resolve_signature(const op_def& op, const node_def& n) {
  for (const auto& [name, value] : n.attrs) {
    // Attrs starting with '_' are the runtime's own annotations (e.g. "_class").
    if (name.starts_with('_')) continue;
    const attr_def* a = op.find_attr(name);
    if (!a)
      return errors::invalid_argument(describe_node(n), ": unknown attr '", name, "'");
    if (value.type() != a->type)
      return errors::invalid_argument(describe_node(n), ": attr '", name, "' has type ",
                                      attr_type_name(value.type()), ", expected ",
                                      attr_type_name(a->type));
    if (!a->allowed_types.empty()) {
      const dtype t = value.get<dtype>();
      if (std::find(a->allowed_types.begin(), a->allowed_types.end(), t) ==
          a->allowed_types.end()) {
        std::string names;
        for (dtype ok : a->allowed_types) {
          names += names.empty() ? "" : ", ";
          names += dtype_name(ok);
        }
        return errors::invalid_argument(describe_node(n), ": attr '", name, "' is ",
                                        dtype_name(t), ", not one of {", names, "}");
      }
    }
    if (a->minimum) {
      // For a list attr the minimum bounds its length, as in TensorFlow's "list(int) >= 1".
      const int64_t v = std::visit(
          [](const auto& x) -> int64_t {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, int64_t>) return x;
            else if constexpr (requires { x.size(); } && !std::is_same_v<X, std::string>)
              return static_cast<int64_t>(x.size());
            else return 0;
          },
          value.value());
      if (v < *a->minimum)
        return errors::invalid_argument(describe_node(n), ": attr '", name, "' is ",
                                        value.to_string(), ", below its minimum ", *a->minimum,
                                        a->type == attr_type::int_ ? "" : " elements");
    }
  }
  for (const auto& a : op.attrs)
    if (!n.attrs.count(a.name))
      return errors::invalid_argument(describe_node(n), ": attr '", a.name, "' is missing");

  node_signature sig;
  // Most args are one tensor each: room for that up front (a graph resolves every node).
  sig.input_types.reserve(op.inputs.size());
  sig.input_is_ref.reserve(op.inputs.size());
  sig.output_types.reserve(op.outputs.size());
  sig.output_is_ref.reserve(op.outputs.size());
  const auto expand = [&](const std::vector<arg_def>& args, std::vector<dtype>& types,
                          std::vector<bool>& refs) -> status {
    for (const auto& arg : args) {
      dtype t = arg.fixed_type;
      if (!arg.type_attr.empty()) {
        const attr_value& v = n.attrs.at(arg.type_attr);
        if (v.holds<std::vector<dtype>>()) {  // a list(type) arg: one entry per listed type
          for (dtype lt : v.get<std::vector<dtype>>()) {
            types.push_back(lt);
            refs.push_back(arg.is_ref);
          }
          continue;
        }
        t = v.get<dtype>();
      }
      if (t == dtype::invalid)
        return errors::invalid_argument(describe_node(n), ": arg '", arg.name, "' has no dtype");
      int64_t count = 1;
      if (!arg.number_attr.empty()) count = n.attrs.at(arg.number_attr).get<int64_t>();
      if (count < 0)
        return errors::invalid_argument(describe_node(n), ": arg '", arg.name,
                                        "' has a negative length");
      // A resource handle is a reference whichever way its type is spelt: TensorFlow passes
      // handles through plain Enter, Switch, Merge and Identity (T = resource), and those edges
      // must stay references as "handle: resource" ones are.
      for (int64_t i = 0; i < count; ++i) {
        types.push_back(t);
        refs.push_back(arg.is_ref || t == dtype::resource);
      }
    }
    return {};
  };
  CAFLOW_RETURN_IF_ERROR(expand(op.inputs, sig.input_types, sig.input_is_ref));
  CAFLOW_RETURN_IF_ERROR(expand(op.outputs, sig.output_types, sig.output_is_ref));
  return sig;
}

}  // namespace caflow
