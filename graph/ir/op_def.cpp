#include "graph/ir/op_def.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace caflow {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "name: rest" into its two trimmed halves.
status split_spec(std::string_view spec, std::string_view& name, std::string_view& rest) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos)
    return errors::invalid_argument("spec '", spec, "' lacks 'name: type'");
  name = trim(spec.substr(0, colon));
  rest = trim(spec.substr(colon + 1));
  if (name.empty() || rest.empty())
    return errors::invalid_argument("spec '", spec, "' has an empty name or type");
  return {};
}

status_or<arg_def> parse_arg(std::string_view spec) {
  std::string_view name, rest;
  CAFLOW_RETURN_IF_ERROR(split_spec(spec, name, rest));
  arg_def a;
  a.name = std::string(name);
  if (rest.starts_with("Ref(") && rest.ends_with(")")) {
    a.is_ref = true;
    rest = trim(rest.substr(4, rest.size() - 5));
  }
  if (const auto star = rest.find('*'); star != std::string_view::npos) {
    a.number_attr = std::string(trim(rest.substr(0, star)));
    rest = trim(rest.substr(star + 1));
  }
  if (auto t = parse_dtype(rest); t.ok()) a.fixed_type = *t;
  else a.type_attr = std::string(rest);
  // A resource handle is a reference to state: same colocation and no-copy rules as Ref(T).
  if (a.fixed_type == dtype::resource) a.is_ref = true;
  return a;
}

status_or<int64_t> parse_int(std::string_view s) {
  s = trim(s);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    return errors::invalid_argument("'", s, "' is not an integer");
  return v;
}

template <class F>
status for_each_list_item(std::string_view s, F&& f) {
  s = trim(s);
  if (!s.starts_with('[') || !s.ends_with(']'))
    return errors::invalid_argument("list default '", s, "' must be written [a, b, ...]");
  s = trim(s.substr(1, s.size() - 2));
  while (!s.empty()) {
    const auto comma = s.find(',');
    CAFLOW_RETURN_IF_ERROR(f(trim(s.substr(0, comma))));
    if (comma == std::string_view::npos) break;
    s = trim(s.substr(comma + 1));
  }
  return {};
}

status_or<attr_value> parse_default(attr_type type, std::string_view s) {
  switch (type) {
    case attr_type::int_: {
      CAFLOW_ASSIGN_OR_RETURN(int64_t v, parse_int(s));
      return attr_value(v);
    }
    case attr_type::float_: return attr_value(std::strtof(std::string(s).c_str(), nullptr));
    case attr_type::bool_:
      if (s == "true") return attr_value(true);
      if (s == "false") return attr_value(false);
      return errors::invalid_argument("bool default '", s, "' is neither true nor false");
    case attr_type::string:
      if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        return attr_value(std::string(s.substr(1, s.size() - 2)));
      return errors::invalid_argument("string default ", s, " must be quoted");
    case attr_type::type: {
      CAFLOW_ASSIGN_OR_RETURN(dtype t, parse_dtype(s));
      return attr_value(t);
    }
    case attr_type::shape: {
      if (s == "unknown") return attr_value(partial_shape::unknown());
      std::vector<int64_t> dims;
      CAFLOW_RETURN_IF_ERROR(for_each_list_item(s, [&](std::string_view item) -> status {
        CAFLOW_ASSIGN_OR_RETURN(int64_t d, parse_int(item));
        dims.push_back(d);
        return {};
      }));
      CAFLOW_ASSIGN_OR_RETURN(partial_shape p, partial_shape::make(dims));
      return attr_value(p);
    }
    case attr_type::list_int: {
      std::vector<int64_t> v;
      CAFLOW_RETURN_IF_ERROR(for_each_list_item(s, [&](std::string_view item) -> status {
        CAFLOW_ASSIGN_OR_RETURN(int64_t d, parse_int(item));
        v.push_back(d);
        return {};
      }));
      return attr_value(std::move(v));
    }
    case attr_type::list_float: {
      std::vector<float> v;
      CAFLOW_RETURN_IF_ERROR(for_each_list_item(s, [&](std::string_view item) -> status {
        v.push_back(std::strtof(std::string(item).c_str(), nullptr));
        return {};
      }));
      return attr_value(std::move(v));
    }
    case attr_type::list_type: {
      std::vector<dtype> v;
      CAFLOW_RETURN_IF_ERROR(for_each_list_item(s, [&](std::string_view item) -> status {
        CAFLOW_ASSIGN_OR_RETURN(dtype t, parse_dtype(item));
        v.push_back(t);
        return {};
      }));
      return attr_value(std::move(v));
    }
    default:
      if (trim(s) == "[]") {
        attr_value v;
        switch (type) {
          case attr_type::list_bool: return attr_value(std::vector<bool>{});
          case attr_type::list_string: return attr_value(std::vector<std::string>{});
          case attr_type::list_shape: return attr_value(std::vector<partial_shape>{});
          case attr_type::list_tensor: return attr_value(std::vector<tensor>{});
          default: break;
        }
      }
      return errors::unimplemented("defaults for attrs of type ", attr_type_name(type),
                                   " are not supported: '", s, "'");
  }
}

status_or<attr_def> parse_attr(std::string_view spec) {
  std::string_view name, rest;
  CAFLOW_RETURN_IF_ERROR(split_spec(spec, name, rest));
  attr_def a;
  a.name = std::string(name);
  std::string_view default_text;
  // "int >= 1 = 2": a minimum, then a default. A default's '=' is one not part of ">=".
  size_t eq = std::string_view::npos;
  for (size_t i = 0; i < rest.size(); ++i)
    if (rest[i] == '=' && (i == 0 || rest[i - 1] != '>')) {
      eq = i;
      break;
    }
  if (eq != std::string_view::npos) {
    default_text = trim(rest.substr(eq + 1));
    rest = trim(rest.substr(0, eq));
  }
  if (const auto ge = rest.find(">="); ge != std::string_view::npos) {
    CAFLOW_ASSIGN_OR_RETURN(int64_t m, parse_int(rest.substr(ge + 2)));
    a.minimum = m;
    rest = trim(rest.substr(0, ge));
  }
  if (rest.starts_with('{')) {
    if (!rest.ends_with('}')) return errors::invalid_argument("unterminated type set in '", spec, "'");
    a.type = attr_type::type;
    std::string list(rest);
    list.front() = '[';
    list.back() = ']';
    CAFLOW_RETURN_IF_ERROR(for_each_list_item(list, [&](std::string_view item) -> status {
      CAFLOW_ASSIGN_OR_RETURN(dtype t, parse_dtype(item));
      a.allowed_types.push_back(t);
      return {};
    }));
  } else {
    CAFLOW_ASSIGN_OR_RETURN(a.type, parse_attr_type(rest));
  }
  if (!default_text.empty()) {
    CAFLOW_ASSIGN_OR_RETURN(attr_value v, parse_default(a.type, default_text));
    a.default_value = std::move(v);
  }
  return a;
}

}  // namespace

const attr_def* op_def::find_attr(std::string_view n) const {
  for (const auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}

op_def_builder::op_def_builder(std::string name, std::string source_file) {
  def_.name = std::move(name);
  def_.source_file = std::move(source_file);
}
op_def_builder& op_def_builder::input(std::string_view spec) {
  input_specs_.emplace_back(spec);
  return *this;
}
op_def_builder& op_def_builder::output(std::string_view spec) {
  output_specs_.emplace_back(spec);
  return *this;
}
op_def_builder& op_def_builder::attr(std::string_view spec) {
  attr_specs_.emplace_back(spec);
  return *this;
}
op_def_builder& op_def_builder::stateful() {
  def_.is_stateful = true;
  return *this;
}
op_def_builder& op_def_builder::commutative() {
  def_.is_commutative = true;
  return *this;
}
op_def_builder& op_def_builder::cheap() {
  def_.is_cheap = true;
  return *this;
}
op_def_builder& op_def_builder::constant_value(std::string attr) {
  def_.constant_value_attr = std::move(attr);
  return *this;
}
op_def_builder& op_def_builder::set_shape_fn(shape_fn fn) {
  def_.infer_shape = std::move(fn);
  return *this;
}

status_or<op_def> op_def_builder::finalize() const {
  op_def d = def_;
  const auto ctx = [&](const std::string& spec) { return "op " + d.name + ", spec '" + spec + "'"; };
  for (const auto& s : attr_specs_) {
    auto a = parse_attr(s);
    if (!a.ok()) return a.get_status().with_context(ctx(s));
    d.attrs.push_back(std::move(a).value());
  }
  const auto add_args = [&](const std::vector<std::string>& specs,
                            std::vector<arg_def>& out) -> status {
    for (const auto& s : specs) {
      auto a = parse_arg(s);
      if (!a.ok()) return a.get_status().with_context(ctx(s));
      if (!a->type_attr.empty()) {
        // "components: Tcomponents" with Tcomponents a list(type): one tensor per listed type.
        const attr_def* t = d.find_attr(a->type_attr);
        const bool type_list = t && t->type == attr_type::list_type;
        if (!t || (t->type != attr_type::type && !type_list))
          return errors::invalid_argument(ctx(s), ": '", a->type_attr,
                                          "' is not a type or list(type) attr");
        if (type_list && !a->number_attr.empty())
          return errors::invalid_argument(ctx(s), ": a list(type) arg takes no length attr");
      }
      if (!a->number_attr.empty()) {
        const attr_def* n = d.find_attr(a->number_attr);
        if (!n || n->type != attr_type::int_)
          return errors::invalid_argument(ctx(s), ": '", a->number_attr, "' is not an int attr");
      }
      out.push_back(std::move(a).value());
    }
    return {};
  };
  CAFLOW_RETURN_IF_ERROR(add_args(input_specs_, d.inputs));
  CAFLOW_RETURN_IF_ERROR(add_args(output_specs_, d.outputs));
  return d;
}

op_registry& op_registry::global() {
  static op_registry instance;
  return instance;
}

void op_registry::add(const op_def_builder& b) {
  auto d = b.finalize();
  if (!d.ok()) {
    std::fprintf(stderr, "caflow: bad op registration: %s\n", d.get_status().to_string().c_str());
    std::abort();
  }
  if (by_name_.count(d->name)) {
    std::fprintf(stderr, "caflow: op '%s' registered twice\n", d->name.c_str());
    std::abort();
  }
  ops_.push_back(std::make_unique<op_def>(std::move(d).value()));
  by_name_.emplace(ops_.back()->name, ops_.back().get());
}

const op_def* op_registry::lookup(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

status_or<const op_def*> op_registry::find(std::string_view name) const {
  if (const op_def* d = lookup(name)) return d;
  return errors::not_found("op '", name, "' is not registered");
}

std::vector<std::string> op_registry::op_names() const {
  std::vector<std::string> names;
  for (const auto& [n, d] : by_name_) names.push_back(n);
  return names;
}

}  // namespace caflow
