#pragma once
// Element types of tensors and the compile-time mapping from C++ types.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "graph/core/status.hpp"

namespace caflow {

enum class dtype : uint8_t {
  invalid = 0,
  float32 = 1,
  float64 = 2,
  int32 = 3,
  int64 = 4,
  uint8 = 5,
  boolean = 6,
  // Not an element type: the type of handle edges to stateful resources (queues,
  // accumulators). Handle edges behave like Ref edges (producer and consumers share a
  // device); no tensor ever has this dtype.
  resource = 7,
  // Byte strings of any length (TF's DT_STRING): serialized protos such as summaries, file
  // names, checkpoint keys. Not a fixed-size element type, so outside 1 .. num_dtypes - 1 and
  // never visited by visit_dtype: only kernels registered for strings ever see one
  // (kernels/framework/kernel_registry.hpp), and a string tensor's bytes are laid out as
  // graph/core/tensor.hpp describes.
  string = 8,
};

// Element types are 1 .. num_dtypes - 1.
inline constexpr int num_dtypes = 7;

// Bytes per element; 0 for `invalid`, `resource` and `string` (whose elements vary).
size_t dtype_size(dtype t);
// TensorFlow-style names: "float32", "float64", "int32", "int64", "uint8", "bool", "string".
const char* dtype_name(dtype t);
// Accepts the names above and TF's aliases ("float", "double", "DT_FLOAT", ...).
status_or<dtype> parse_dtype(std::string_view name);
// A fixed-size element type (1 .. num_dtypes - 1).
bool is_valid_dtype(uint8_t raw);
// Any type a tensor may hold: the element types and `string`.
bool is_tensor_dtype(uint8_t raw);

template <class T>
struct dtype_of;
template <> struct dtype_of<float> { static constexpr dtype value = dtype::float32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::float64; };
template <> struct dtype_of<int32_t> { static constexpr dtype value = dtype::int32; };
template <> struct dtype_of<int64_t> { static constexpr dtype value = dtype::int64; };
template <> struct dtype_of<uint8_t> { static constexpr dtype value = dtype::uint8; };
template <> struct dtype_of<bool> { static constexpr dtype value = dtype::boolean; };
template <class T>
inline constexpr dtype dtype_v = dtype_of<T>::value;

// Calls `f.template operator()<T>()` with the C++ type of `t`; returns false for invalid.
// Used where code is generic over every dtype (copies, printing, serialization), never to
// pick kernels: kernels are chosen by the registry.
template <class F>
bool visit_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::float32: f.template operator()<float>(); return true;
    case dtype::float64: f.template operator()<double>(); return true;
    case dtype::int32: f.template operator()<int32_t>(); return true;
    case dtype::int64: f.template operator()<int64_t>(); return true;
    case dtype::uint8: f.template operator()<uint8_t>(); return true;
    case dtype::boolean: f.template operator()<bool>(); return true;
    case dtype::invalid:
    case dtype::resource:
    case dtype::string: return false;
  }
  return false;
}

}  // namespace caflow
