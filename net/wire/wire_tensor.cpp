#include "net/wire/wire_tensor.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>
#include <limits>
#include <span>
#include <string>

namespace caflow {
namespace {

caf::error tensor_refusal(const std::string& why) {
  return caf::make_error(caf::sec::invalid_argument, "wire_tensor: " + why);
}

// A string tensor's bytes, checked as tensor::strings_from_bytes checks any bytes from outside.
caf::error read_strings(caf::deserializer& f, const tensor_shape& shape, uint64_t bytes,
                        wire_tensor& x) {
  if (bytes > max_wire_tensor_bytes)
    return tensor_refusal("header announces string" + shape.to_string() + " of " +
                          std::to_string(bytes) + " bytes: these exceed the per-message limit of " +
                          std::to_string(max_wire_tensor_bytes) + " bytes");
  if (auto* bin = dynamic_cast<caf::binary_deserializer*>(&f); bin && bin->remaining() < bytes)
    return tensor_refusal("message holds " + std::to_string(bin->remaining()) + " of " +
                          std::to_string(bytes) + " announced bytes");
  std::string raw(bytes, '\0');
  if (bytes > 0)
    if (auto err = f.apply_raw(bytes, raw.data())) return err;
  auto t = tensor::strings_from_bytes(shape, raw.data(), raw.size());
  if (!t.ok()) return tensor_refusal(t.get_status().message());
  x.value = std::move(t).value();
  return caf::none;
}

}  // namespace

caf::error inspect(caf::serializer& f, wire_tensor& x) {
  const tensor& t = x.value;
  const auto type = static_cast<uint8_t>(t.type());
  const auto rank = static_cast<uint8_t>(t.rank());
  if (auto err = f(type, rank)) return err;
  for (int i = 0; i < t.rank(); ++i)
    if (auto err = f(t.dim(i))) return err;
  uint64_t bytes = t.initialized() ? t.byte_size() : 0;
  if (auto err = f(bytes)) return err;
  return bytes > 0 ? f.apply_raw(bytes, t.raw_data()) : caf::none;
}

caf::error inspect(caf::deserializer& f, wire_tensor& x) {
  uint8_t type = 0, rank = 0;
  if (auto err = f(type, rank)) return err;
  if (type == 0) {  // an uninitialized tensor
    x.value = tensor{};
    uint64_t none = 0;
    return f(none);
  }
  if (!is_tensor_dtype(type)) return tensor_refusal("invalid dtype " + std::to_string(type));
  if (rank > max_rank)
    return tensor_refusal("rank " + std::to_string(rank) + " exceeds " + std::to_string(max_rank));
  int64_t dims[max_rank];
  for (int i = 0; i < rank; ++i)
    if (auto err = f(dims[i])) return err;
  const std::span<const int64_t> announced(dims, rank);
  auto shape = tensor_shape::make(announced);
  if (!shape.ok())
    return tensor_refusal("header announces " + std::string(dtype_name(static_cast<dtype>(type))) +
                          format_dims(announced) + ": " + shape.get_status().message());
  uint64_t bytes = 0;
  if (auto err = f(bytes)) return err;
  const auto dt = static_cast<dtype>(type);
  if (dt == dtype::string) return read_strings(f, *shape, bytes, x);
  const auto elements = static_cast<uint64_t>(shape->num_elements());
  const uint64_t element_size = dtype_size(dt);
  // Checked in this order so that elements x element_size cannot overflow.
  if (elements > max_wire_tensor_bytes / element_size) {
    const bool overflows = elements > std::numeric_limits<uint64_t>::max() / element_size;
    return tensor_refusal(
        "header announces " + std::string(dtype_name(dt)) + shape->to_string() + ", " +
        (overflows ? std::string("more than 2^64") : std::to_string(elements * element_size)) +
        " bytes: these exceed the per-message limit of " + std::to_string(max_wire_tensor_bytes) +
        " bytes");
  }
  if (bytes != elements * element_size)
    return tensor_refusal("header of " + std::string(dtype_name(dt)) + shape->to_string() +
                          " announces " + std::to_string(bytes) + " bytes, not " +
                          std::to_string(elements * element_size));
  if (auto* bin = dynamic_cast<caf::binary_deserializer*>(&f); bin && bin->remaining() < bytes)
    return tensor_refusal("message holds " + std::to_string(bin->remaining()) + " of " +
                          std::to_string(bytes) + " announced bytes");
  auto t = tensor::allocate(default_allocator(), dt, *shape);
  if (!t.ok()) return tensor_refusal(t.get_status().message());
  x.value = std::move(t).value();
  if (bytes == 0) return caf::none;
  if (auto err = f.apply_raw(bytes, x.value.raw_data())) return err;
  if (dt == dtype::boolean) {
    if (auto err = check_bools("wire_tensor: ", x.value.raw_data(), bytes)) {
      x.value = tensor{};
      return err;
    }
  }
  return caf::none;
}

caf::error check_bools(const char* what, const void* data, uint64_t bytes) {
  // Any byte but 0 or 1 is not a bool: a kernel reading one has undefined behaviour.
  const auto* p = static_cast<const uint8_t*>(data);
  for (uint64_t i = 0; i < bytes; ++i)
    if (p[i] > 1)
      return caf::make_error(caf::sec::invalid_argument,
                             std::string(what) + "bool tensor holds byte value " +
                                 std::to_string(p[i]) + " at element " + std::to_string(i));
  return caf::none;
}

}  // namespace caflow
