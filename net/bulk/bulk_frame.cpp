#include "net/bulk/bulk_frame.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include "graph/core/shape.hpp"
#include "net/wire/wire_chunk.hpp"

namespace caflow {
namespace {

constexpr size_t fixed_header_bytes = 8 + 8 + 1 + 1 + 2 + 8;  // without dims and key

template <class T>
void put(std::vector<char>& out, T value) {
  const size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
}

// Reads values front to back; `ok` turns false at the first read past the end.
struct reader {
  std::span<const char> rest;
  bool ok = true;
  template <class T>
  T take() {
    T value{};
    if (rest.size() < sizeof value) {
      ok = false;
      return value;
    }
    std::memcpy(&value, rest.data(), sizeof value);
    rest = rest.subspan(sizeof value);
    return value;
  }
};

}  // namespace

std::vector<char> encode_bulk_header(const bulk_header& h) {
  std::vector<char> out;
  out.reserve(bulk_prefix_bytes + fixed_header_bytes + 8 * h.dims.size() + h.key.size());
  put(out, bulk_magic);
  put(out, uint32_t{0});  // the header size, known at the end
  put(out, h.actor_id);
  put(out, h.step_id);
  put(out, h.type);
  put(out, static_cast<uint8_t>(h.dims.size()));
  put(out, static_cast<uint16_t>(h.key.size()));
  for (int64_t d : h.dims) put(out, d);
  put(out, h.total_bytes);
  out.insert(out.end(), h.key.begin(), h.key.end());
  const auto header_bytes = static_cast<uint32_t>(out.size() - bulk_prefix_bytes);
  std::memcpy(out.data() + 4, &header_bytes, sizeof header_bytes);
  return out;
}

status_or<uint32_t> parse_bulk_prefix(std::span<const char, bulk_prefix_bytes> prefix) {
  reader r{prefix};
  const auto magic = r.take<uint32_t>();
  const auto size = r.take<uint32_t>();
  if (magic != bulk_magic)
    return errors::invalid_argument("bulk transfer: bad magic number ", magic,
                                    " (not a caflow peer, or one of another byte order)");
  if (size < fixed_header_bytes || size > max_bulk_header_bytes)
    return errors::invalid_argument("bulk transfer: a header of ", size,
                                    " bytes (allowed: ", fixed_header_bytes, " to ",
                                    max_bulk_header_bytes, ")");
  return size;
}

status_or<bulk_header> parse_bulk_header(std::span<const char> body) {
  reader r{body};
  bulk_header h;
  h.actor_id = r.take<uint64_t>();
  h.step_id = r.take<int64_t>();
  h.type = r.take<uint8_t>();
  const auto rank = r.take<uint8_t>();
  const auto key_bytes = r.take<uint16_t>();
  if (rank > max_rank)
    return errors::invalid_argument("bulk transfer of step ", h.step_id, ": rank ",
                                    static_cast<int>(rank), " exceeds ", max_rank);
  for (int i = 0; i < rank && r.ok; ++i) h.dims.push_back(r.take<int64_t>());
  h.total_bytes = r.take<uint64_t>();
  if (!r.ok || r.rest.size() != key_bytes)
    return errors::invalid_argument("bulk transfer of step ", h.step_id, ": a header of ",
                                    body.size(), " bytes does not hold rank ",
                                    static_cast<int>(rank), " and a key of ", key_bytes,
                                    " bytes");
  h.key.assign(r.rest.data(), r.rest.size());
  CAFLOW_RETURN_IF_ERROR(check_announced_tensor("a bulk transfer", h.key, h.step_id, h.type,
                                                h.dims, h.total_bytes));
  return h;
}

std::array<char, bulk_token_bytes> make_bulk_token() {
  std::random_device rd;
  std::array<char, bulk_token_bytes> token{};
  for (size_t i = 0; i < token.size(); i += sizeof(unsigned)) {
    const unsigned word = rd();
    std::memcpy(token.data() + i, &word, std::min(sizeof word, token.size() - i));
  }
  return token;
}

}  // namespace caflow
