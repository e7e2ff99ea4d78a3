#include "graph/core/types.hpp"

namespace caflow {

size_t dtype_size(dtype t) {
  size_t n = 0;
  visit_dtype(t, [&]<class T>() { n = sizeof(T); });
  return n;
}

const char* dtype_name(dtype t) {
  switch (t) {
    case dtype::float32: return "float32";
    case dtype::float64: return "float64";
    case dtype::int32: return "int32";
    case dtype::int64: return "int64";
    case dtype::uint8: return "uint8";
    case dtype::boolean: return "bool";
    case dtype::resource: return "resource";
    case dtype::string: return "string";
    case dtype::invalid: break;
  }
  return "invalid";
}

status_or<dtype> parse_dtype(std::string_view name) {
  struct alias { std::string_view name; dtype t; };
  static constexpr alias table[] = {
      {"float32", dtype::float32}, {"float", dtype::float32},   {"DT_FLOAT", dtype::float32},
      {"float64", dtype::float64}, {"double", dtype::float64},  {"DT_DOUBLE", dtype::float64},
      {"int32", dtype::int32},     {"DT_INT32", dtype::int32},  {"int64", dtype::int64},
      {"DT_INT64", dtype::int64},  {"uint8", dtype::uint8},     {"DT_UINT8", dtype::uint8},
      {"bool", dtype::boolean},    {"DT_BOOL", dtype::boolean},
      {"string", dtype::string},   {"DT_STRING", dtype::string},
      {"resource", dtype::resource}, {"DT_RESOURCE", dtype::resource},
  };
  for (const auto& a : table)
    if (a.name == name) return a.t;
  return errors::invalid_argument("unknown dtype '", std::string(name), "'");
}

bool is_valid_dtype(uint8_t raw) { return raw >= 1 && raw < num_dtypes; }

bool is_tensor_dtype(uint8_t raw) {
  return is_valid_dtype(raw) || raw == static_cast<uint8_t>(dtype::string);
}

}  // namespace caflow
