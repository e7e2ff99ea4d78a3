#pragma once
// A tensor as it crosses a process boundary inside a CAF message: a small header (dtype, rank,
// dims, byte count) and then its bytes in one bulk copy (`apply_raw`), never element by element.
// On arrival the header is checked before anything is allocated: a valid dtype, a valid shape,
// a byte count equal to elements x element size, no more than `max_wire_tensor_bytes` and no
// more than the bytes actually left in the message; a bool tensor's bytes must be 0 or 1. Inside a process a CAF message shares the
// tensor handle, so nothing is copied there.
#include <cstdint>

#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>

#include "graph/core/tensor.hpp"

namespace caflow {

// One message carries at most this many tensor bytes (BASP's size field is 32-bit and
// payloads past glibc's mmap threshold are slow); bigger tensors travel in chunks.
inline constexpr uint64_t max_wire_tensor_bytes = 32ull << 20;

struct wire_tensor {
  tensor value;
};

// Refuses `bytes` bytes at `data` as a bool tensor's unless each is 0 or 1; the error starts
// with `what`. Shared with the chunks of a bool tensor (wire_chunk.hpp).
caf::error check_bools(const char* what, const void* data, uint64_t bytes);

caf::error inspect(caf::serializer& f, wire_tensor& x);
caf::error inspect(caf::deserializer& f, wire_tensor& x);

// Logs and to_string: "wire_tensor(float32[2,3] {...})".
template <class Inspector>
typename std::enable_if<!std::is_base_of<caf::serializer, Inspector>::value &&
                            !std::is_base_of<caf::deserializer, Inspector>::value,
                        typename Inspector::result_type>::type
inspect(Inspector& f, wire_tensor& x) {
  std::string text = x.value.debug_string(4);
  return f(caf::meta::type_name("wire_tensor"), text);
}

}  // namespace caflow
