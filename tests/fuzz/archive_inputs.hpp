#pragma once
// Archives carry a CRC-32 (serialization.hpp), so nearly every mutation of one is refused at
// the envelope. Each input is therefore also read resealed (length and checksum recomputed),
// which lets the mutations reach the payload parser.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "graph/ir/serialization.hpp"

namespace caflow::fuzz {

template <class F>
void for_raw_and_resealed(const uint8_t* data, size_t size, F&& read) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  read(raw);
  const std::string resealed = detail::reseal_for_testing(raw);
  if (resealed != raw) read(std::string_view(resealed));
}

// Writing what was read and reading it again gives the same bytes.
template <class T, class Save, class Load>
void check_stable(const T& value, Save&& save, Load&& load, const char* what) {
  const std::string first = save(value);
  auto again = load(first);
  if (!again.ok()) {
    std::fprintf(stderr, "a %s just written does not read back: %s\n", what,
                 again.get_status().to_string().c_str());
    std::abort();
  }
  if (save(*again) != first) {
    std::fprintf(stderr, "a %s read back writes different bytes\n", what);
    std::abort();
  }
}

}  // namespace caflow::fuzz
