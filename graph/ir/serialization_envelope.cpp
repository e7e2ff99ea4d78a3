// The hand-written envelope around every archive: checked in full before the payload parser
// sees a byte, so plain corruption is caught by a checksum rather than by the parser.
#include <zlib.h>

#include <cstdio>
#include <cstring>

#include "graph/ir/serialization.hpp"

namespace caflow::detail {
namespace {

constexpr char magic[4] = {'C', 'F', 'L', 'W'};
constexpr size_t version_offset = 4;
constexpr size_t kind_offset = 6;
constexpr size_t length_offset = 8;
constexpr size_t checksum_offset = 16;
static_assert(checksum_offset + 4 == archive_header_size);

void put_le(char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

uint64_t get_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

uint32_t checksum(std::string_view payload) {
  const uLong seed = crc32_z(0L, Z_NULL, 0);
  return static_cast<uint32_t>(
      crc32_z(seed, reinterpret_cast<const Bytef*>(payload.data()), payload.size()));
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

bool known_kind(uint64_t raw) {
  return raw >= static_cast<uint64_t>(archive_kind::tensor) &&
         raw <= static_cast<uint64_t>(archive_kind::tensor_list);
}

}  // namespace

const char* archive_kind_name(archive_kind kind) {
  switch (kind) {
    case archive_kind::tensor: return "tensor";
    case archive_kind::graph: return "graph";
    case archive_kind::tensor_list: return "tensor list";
  }
  return "unknown";
}

void seal_archive(archive_kind kind, std::span<char> archive) {
  const std::string_view payload(archive.data() + archive_header_size,
                                 archive.size() - archive_header_size);
  char* h = archive.data();
  std::memcpy(h, magic, sizeof magic);
  put_le(h + version_offset, archive_format_version, 2);
  put_le(h + kind_offset, static_cast<uint16_t>(kind), 2);
  put_le(h + length_offset, payload.size(), 8);
  put_le(h + checksum_offset, checksum(payload), 4);
}

status_or<std::string_view> open_archive(archive_kind expected, std::string_view bytes) {
  const char* what = archive_kind_name(expected);
  const size_t magic_seen = std::min(bytes.size(), sizeof magic);
  if (bytes.empty() || std::memcmp(bytes.data(), magic, magic_seen) != 0)
    return errors::data_loss("not a caflow archive (expected a ", what,
                             " archive starting with \"CFLW\")");
  if (bytes.size() < archive_header_size)
    return errors::data_loss(what, " archive truncated: ", bytes.size(),
                             " bytes, shorter than the ", archive_header_size, "-byte header");

  const char* h = bytes.data();
  const uint64_t version = get_le(h + version_offset, 2);
  if (version != archive_format_version)
    return errors::data_loss("unsupported archive version ", version, " (this build reads version ",
                             static_cast<unsigned>(archive_format_version), ")");
  const uint64_t kind = get_le(h + kind_offset, 2);
  if (kind != static_cast<uint64_t>(expected)) {
    if (!known_kind(kind)) return errors::data_loss("unknown archive kind ", kind);
    return errors::data_loss("archive holds a ", archive_kind_name(static_cast<archive_kind>(kind)),
                             ", expected a ", what);
  }

  const uint64_t announced = get_le(h + length_offset, 8);
  const std::string_view payload = bytes.substr(archive_header_size);
  if (announced > payload.size())
    return errors::data_loss(what, " archive truncated: header says ", announced,
                             " payload bytes, ", payload.size(), " present");
  if (announced < payload.size())
    return errors::data_loss(what, " archive has ", payload.size() - announced,
                             " trailing bytes after its ", announced, " payload bytes");

  const uint32_t stored = static_cast<uint32_t>(get_le(h + checksum_offset, 4));
  const uint32_t actual = checksum(payload);
  if (stored != actual)
    return errors::data_loss(what, " archive checksum mismatch: header says ", hex32(stored),
                             ", payload hashes to ", hex32(actual));
  return payload;
}

std::string reseal_for_testing(std::string_view archive) {
  std::string out(archive);
  if (out.size() < archive_header_size) return out;
  const std::string_view payload(out.data() + archive_header_size,
                                 out.size() - archive_header_size);
  put_le(out.data() + length_offset, payload.size(), 8);
  put_le(out.data() + checksum_offset, checksum(payload), 4);
  return out;
}

}  // namespace caflow::detail
