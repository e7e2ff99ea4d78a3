// Boost.Serialization of tensor shapes, partial shapes and tensors (see
// graph/ir/serialization_archive.hpp for the archive plumbing and checked primitives).
#include "graph/ir/serialization_archive.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace caflow::archive_io {
namespace {

std::string tensor_description(dtype type, const tensor_shape& shape) {
  return errors::concat("tensor ", dtype_name(type), shape.to_string());
}

}  // namespace
}  // namespace caflow::archive_io

namespace boost::serialization {
// Only this file's own save/load functions live below, and they speak of caflow types only.
using namespace caflow;              // NOLINT(google-build-using-namespace)
using namespace caflow::archive_io;  // NOLINT(google-build-using-namespace)

void save(oarchive& ar, const tensor_shape& s, unsigned) {
  ar << static_cast<uint8_t>(s.rank());
  if (s.rank() > 0) ar.save_binary(s.dims().data(), s.dims().size_bytes());
}

void load(iarchive& ar, tensor_shape& s, unsigned version) {
  check_version<tensor_shape>("tensor_shape", version);
  uint8_t rank = 0;
  ar >> rank;
  if (rank > max_rank)
    fail("tensor shape of rank ", static_cast<unsigned>(rank), " exceeds the maximum rank ",
         max_rank);
  std::array<int64_t, max_rank> dims{};
  if (rank > 0) ar.load_binary(dims.data(), rank * sizeof(int64_t));
  auto made = tensor_shape::make(std::span<const int64_t>(dims.data(), rank));
  if (!made.ok()) fail("invalid tensor shape: ", made.get_status().message());
  s = *made;
}

void save(oarchive& ar, const partial_shape& s, unsigned) {
  ar << static_cast<int8_t>(s.rank());
  std::array<int64_t, max_rank> dims{};
  for (int i = 0; i < s.rank(); ++i) dims[i] = s.dim(i);
  if (s.rank() > 0) ar.save_binary(dims.data(), s.rank() * sizeof(int64_t));
}

void load(iarchive& ar, partial_shape& s, unsigned version) {
  check_version<partial_shape>("partial_shape", version);
  int8_t rank = 0;
  ar >> rank;
  if (rank < -1 || rank > max_rank)
    fail("partial shape of rank ", static_cast<int>(rank), " is outside [-1, ", max_rank, "]");
  if (rank < 0) {
    s = partial_shape::unknown();
    return;
  }
  std::array<int64_t, max_rank> dims{};
  if (rank > 0) ar.load_binary(dims.data(), rank * sizeof(int64_t));
  auto made = partial_shape::make(std::span<const int64_t>(dims.data(), rank));
  if (!made.ok()) fail("invalid partial shape: ", made.get_status().message());
  s = *made;
}

// dtype (0 for an uninitialized tensor, then nothing else), shape, byte count, bytes.
void save(oarchive& ar, const tensor& t, unsigned) {
  ar << static_cast<uint8_t>(t.type());
  if (!t.initialized()) return;
  ar << t.shape();
  const uint64_t bytes = t.byte_size();
  ar << bytes;
  if (bytes > 0) ar.save_binary(t.raw_data(), bytes);
}

void load(iarchive& ar, tensor& t, unsigned version) {
  check_version<tensor>("tensor", version);
  uint8_t raw = 0;
  ar >> raw;
  if (raw == 0) {
    t = tensor();
    return;
  }
  if (!is_tensor_dtype(raw)) fail("invalid dtype ", static_cast<unsigned>(raw), " in tensor");
  const auto type = static_cast<dtype>(raw);
  tensor_shape shape;
  ar >> shape;
  if (type == dtype::string) {  // its size is its contents': the layout is checked instead
    uint64_t bytes = 0;
    ar >> bytes;
    if (bytes > remaining(ar))
      fail(tensor_description(type, shape), " needs ", bytes, " bytes, but only ", remaining(ar),
           " bytes are left in the archive");
    std::string raw_bytes(bytes, '\0');
    if (bytes > 0) ar.load_binary(raw_bytes.data(), bytes);
    auto made = tensor::strings_from_bytes(shape, raw_bytes.data(), raw_bytes.size());
    if (!made.ok()) throw load_error(made.get_status());
    t = std::move(made).value();
    return;
  }

  // Sizes are checked against the input before the buffer exists; num_elements() * size can
  // overflow for a forged shape, so compare by division first.
  const size_t elem = dtype_size(type);
  const auto count = static_cast<uint64_t>(shape.num_elements());
  const size_t left = remaining(ar);
  if (count > left / elem) {
    const bool overflows = count > std::numeric_limits<uint64_t>::max() / elem;
    fail(tensor_description(type, shape), " needs ",
         overflows ? std::string("more than 2^64") : std::to_string(count * elem),
         " bytes, but only ", left, " bytes are left in the archive");
  }
  uint64_t bytes = 0;
  ar >> bytes;
  if (bytes != count * elem)
    fail(tensor_description(type, shape), " announces ", bytes, " data bytes, expected ",
         count * elem);
  if (bytes > remaining(ar))
    fail(tensor_description(type, shape), " needs ", bytes, " bytes, but only ", remaining(ar),
         " bytes are left in the archive");

  auto allocated = tensor::allocate(context(ar).alloc, type, shape);
  if (!allocated.ok()) throw load_error(allocated.get_status());
  if (bytes > 0) ar.load_binary(allocated->raw_data(), bytes);
  if (type == dtype::boolean) {
    // Any byte but 0 or 1 is not a bool; reading one as bool is undefined behaviour.
    const auto* p = static_cast<const uint8_t*>(allocated->raw_data());
    for (uint64_t i = 0; i < bytes; ++i)
      if (p[i] > 1)
        fail("bool tensor holds byte value ", static_cast<unsigned>(p[i]), " at element ", i);
  }
  t = std::move(*allocated);
}

}  // namespace boost::serialization
