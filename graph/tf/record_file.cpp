#include "graph/tf/record_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "graph/tf/crc32c.hpp"

namespace caflow::tf {
namespace {

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
}

uint64_t get_le(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[at + k])) << (8 * k);
  return v;
}

}  // namespace

void append_record(std::string& out, std::string_view data) {
  std::string length;
  put_le(length, data.size(), 8);
  out += length;
  put_le(out, mask_crc(crc32c(length)), 4);
  out.append(data);
  put_le(out, mask_crc(crc32c(data)), 4);
}

status_or<std::vector<std::string>> parse_records(std::string_view bytes, const std::string& origin) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < bytes.size()) {
    const auto where = [&] { return errors::concat(origin, ": record ", out.size(), " at byte ", at); };
    if (bytes.size() - at < 12)
      return errors::data_loss(where(), ": ", bytes.size() - at, " bytes left, a record header takes 12");
    const uint64_t n = get_le(bytes, at, 8);
    if (mask_crc(crc32c(bytes.substr(at, 8))) != get_le(bytes, at + 8, 4))
      return errors::data_loss(where(), ": the length's CRC does not match (a torn or corrupt header)");
    if (n > bytes.size() - at - 12 || bytes.size() - at - 12 - n < 4)
      return errors::data_loss(where(), ": its ", n, " bytes of data and CRC run past the end");
    const std::string_view data = bytes.substr(at + 12, n);
    if (mask_crc(crc32c(data)) != get_le(bytes, at + 12 + n, 4))
      return errors::data_loss(where(), ": the data's CRC does not match");
    out.emplace_back(data);
    at += 12 + n + 4;
  }
  return out;
}

status_or<std::vector<std::string>> read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::not_found(path, ": cannot open: ", std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) return errors::data_loss(path, ": read failed: ", std::strerror(errno));
  return parse_records(bytes, path);
}

}  // namespace caflow::tf
