#include "net/transport_security.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace caflow {
namespace {

status check_readable(const char* flag, const std::string& path) {
  if (path.empty())
    return errors::invalid_argument(flag, " is missing: TLS needs --tls-cert, --tls-key and --tls-ca");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return errors::invalid_argument(flag, " file '", path, "' cannot be opened: ",
                                    errno != 0 ? std::strerror(errno) : "unknown reason");
  // A directory opens but cannot be read; an empty file holds no PEM block.
  if (in.peek() == std::ifstream::traits_type::eof())
    return errors::invalid_argument(flag, " file '", path, "' is empty or not a regular file");
  return {};
}

}  // namespace

status validate(const transport_security& sec) {
  if (sec.cluster_id.empty()) return errors::invalid_argument("--cluster-id must not be empty");
  if (!sec.tls()) return {};
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-cert", sec.cert));
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-key", sec.key));
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-ca", sec.ca));
  return {};
}

}  // namespace caflow
