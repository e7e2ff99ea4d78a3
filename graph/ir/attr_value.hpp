#pragma once
// Typed node attributes: int, float, bool, string, type, shape, tensor, and lists of those.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/tensor.hpp"
#include "graph/core/types.hpp"

namespace caflow {

// The order matches attr_value::storage's alternatives.
enum class attr_type : uint8_t {
  none = 0,
  int_,
  float_,
  bool_,
  string,
  type,
  shape,
  tensor,
  list_int,
  list_float,
  list_bool,
  list_string,
  list_type,
  list_shape,
  list_tensor,
};
inline constexpr int num_attr_types = 15;

// "int", "float", "bool", "string", "type", "shape", "tensor", "list(int)", ...
const char* attr_type_name(attr_type t);
status_or<attr_type> parse_attr_type(std::string_view name);

class attr_value {
 public:
  using storage = std::variant<std::monostate, int64_t, float, bool, std::string, dtype,
                               partial_shape, tensor, std::vector<int64_t>, std::vector<float>,
                               std::vector<bool>, std::vector<std::string>, std::vector<dtype>,
                               std::vector<partial_shape>, std::vector<tensor>>;

  attr_value() = default;
  attr_value(int v) : v_(int64_t{v}) {}
  attr_value(int64_t v) : v_(v) {}
  attr_value(float v) : v_(v) {}
  attr_value(double v) : v_(static_cast<float>(v)) {}
  attr_value(bool v) : v_(v) {}
  attr_value(const char* v) : v_(std::string(v)) {}
  attr_value(std::string v) : v_(std::move(v)) {}
  attr_value(dtype v) : v_(v) {}
  attr_value(partial_shape v) : v_(std::move(v)) {}
  attr_value(const tensor_shape& v) : v_(partial_shape(v)) {}
  attr_value(tensor v) : v_(std::move(v)) {}
  attr_value(std::vector<int64_t> v) : v_(std::move(v)) {}
  attr_value(std::vector<int> v) : v_(std::vector<int64_t>(v.begin(), v.end())) {}
  attr_value(std::vector<float> v) : v_(std::move(v)) {}
  attr_value(std::vector<bool> v) : v_(std::move(v)) {}
  attr_value(std::vector<std::string> v) : v_(std::move(v)) {}
  attr_value(std::vector<dtype> v) : v_(std::move(v)) {}
  attr_value(std::vector<partial_shape> v) : v_(std::move(v)) {}
  attr_value(std::vector<tensor> v) : v_(std::move(v)) {}

  attr_type type() const { return static_cast<attr_type>(v_.index()); }
  bool has_value() const { return v_.index() != 0; }
  template <class T>
  bool holds() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: holds<T>().
  template <class T>
  const T& get() const { return std::get<T>(v_); }
  const storage& value() const { return v_; }
  storage& value() { return v_; }

  // Deterministic text, used in error messages, graph dumps and value numbering.
  std::string to_string() const;
  bool operator==(const attr_value& o) const;

 private:
  storage v_;
};

}  // namespace caflow
