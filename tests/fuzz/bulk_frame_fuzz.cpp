// Frame headers of the bulk tensor channel (net/bulk/bulk_frame.hpp): parse_bulk_prefix on the first
// eight bytes and parse_bulk_header on the rest, as a receiver reads them off a socket. A header
// that parses must encode back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "net/bulk/bulk_frame.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  if (size < bulk_prefix_bytes) return 0;
  const std::span<const char> bytes(reinterpret_cast<const char*>(data), size);
  auto header_bytes =
      parse_bulk_prefix(std::span<const char, bulk_prefix_bytes>(bytes.data(), bulk_prefix_bytes));
  if (!header_bytes.ok()) return 0;
  const auto body = bytes.subspan(bulk_prefix_bytes);
  if (body.size() < *header_bytes) return 0;  // the receiver waits for more
  auto header = parse_bulk_header(body.first(*header_bytes));
  if (!header.ok()) return 0;
  const std::vector<char> again = encode_bulk_header(*header);
  if (again.size() != bulk_prefix_bytes + *header_bytes ||
      std::memcmp(again.data(), bytes.data(), again.size()) != 0)
    std::abort();  // a header the receiver accepts must mean exactly what its bytes say
  return 0;
}
