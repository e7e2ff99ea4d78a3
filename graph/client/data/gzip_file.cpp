#include "graph/client/data/gzip_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace caflow::data {
namespace {

struct gz_closer {
  void operator()(gzFile f) const { gzclose(f); }
};
using gz_handle = std::unique_ptr<gzFile_s, gz_closer>;

std::string gz_message(gzFile f) {
  int code = Z_OK;
  const char* msg = gzerror(f, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return msg && *msg ? msg : "unknown zlib error";
}

}  // namespace

status_or<std::vector<uint8_t>> read_gzip_file(const std::string& path) {
  errno = 0;
  gz_handle f(gzopen(path.c_str(), "rb"));
  if (!f)
    return errors::not_found("cannot open '", path, "': ",
                             errno ? std::strerror(errno) : "out of memory");
  std::vector<uint8_t> bytes;
  constexpr size_t chunk = size_t{1} << 20;
  for (;;) {
    const size_t old = bytes.size();
    bytes.resize(old + chunk);
    const int n = gzread(f.get(), bytes.data() + old, static_cast<unsigned>(chunk));
    if (n < 0) return errors::data_loss("'", path, "' is not readable gzip data: ", gz_message(f.get()));
    bytes.resize(old + static_cast<size_t>(n));
    if (static_cast<size_t>(n) < chunk) break;
  }
  // gzread reports a stream cut short only through gzerror.
  int code = Z_OK;
  gzerror(f.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END)
    return errors::data_loss("'", path, "' is not readable gzip data: ", gz_message(f.get()));
  return bytes;
}

status write_gzip_file(const std::string& path, std::span<const uint8_t> bytes) {
  errno = 0;
  gz_handle f(gzopen(path.c_str(), "wb"));
  if (!f)
    return errors::not_found("cannot create '", path, "': ",
                             errno ? std::strerror(errno) : "out of memory");
  constexpr size_t chunk = size_t{1} << 20;
  for (size_t done = 0; done < bytes.size();) {
    const auto n = static_cast<unsigned>(std::min(chunk, bytes.size() - done));
    if (gzwrite(f.get(), bytes.data() + done, n) != static_cast<int>(n))
      return errors::data_loss("cannot write '", path, "': ", gz_message(f.get()));
    done += n;
  }
  gzFile raw = f.release();
  if (gzclose(raw) != Z_OK) return errors::data_loss("cannot finish writing '", path, "'");
  return {};
}

}  // namespace caflow::data
