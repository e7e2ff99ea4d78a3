#include "graph/ir/attr_value.hpp"

#include <sstream>

namespace caflow {
namespace {
constexpr const char* attr_type_names[num_attr_types] = {
    "none",       "int",         "float",        "bool",       "string",
    "type",       "shape",       "tensor",       "list(int)",  "list(float)",
    "list(bool)", "list(string)", "list(type)", "list(shape)", "list(tensor)"};

void put(std::ostream& os, const std::monostate&) { os << "<none>"; }
void put(std::ostream& os, int64_t v) { os << v; }
void put(std::ostream& os, float v) { os << v; }
void put(std::ostream& os, bool v) { os << (v ? "true" : "false"); }
void put(std::ostream& os, const std::string& v) { os << '"' << v << '"'; }
void put(std::ostream& os, dtype v) { os << dtype_name(v); }
void put(std::ostream& os, const partial_shape& v) { os << v.to_string(); }
void put(std::ostream& os, const tensor& v) { os << v.debug_string(8); }
template <class T>
void put(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    put(os, static_cast<T>(v[i]));
  }
  os << ']';
}
}  // namespace

const char* attr_type_name(attr_type t) {
  const auto i = static_cast<size_t>(t);
  return i < num_attr_types ? attr_type_names[i] : "invalid";
}

status_or<attr_type> parse_attr_type(std::string_view name) {
  for (int i = 1; i < num_attr_types; ++i)
    if (name == attr_type_names[i]) return static_cast<attr_type>(i);
  return errors::invalid_argument("unknown attr type '", std::string(name), "'");
}

std::string attr_value::to_string() const {
  std::ostringstream os;
  std::visit([&](const auto& v) { put(os, v); }, v_);
  return os.str();
}

bool attr_value::operator==(const attr_value& o) const { return v_ == o.v_; }

}  // namespace caflow
