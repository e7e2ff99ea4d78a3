#include "pem_text.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace caflow::certs {

status_or<std::string> pem_text(const std::function<bool(BIO*)>& write) {
  bio_ptr out(BIO_new(BIO_s_mem()));
  if (!out || !write(out.get()))
    return errors::internal("cannot encode PEM", openssl_reason());
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

status_or<bio_ptr> open_pem_file(const std::string& path, const std::string& what) {
  // Opened with the C++ library first for errno: OpenSSL's BIO error says less.
  errno = 0;
  if (!std::ifstream(path)) {
    const int err = errno;
    if (err == ENOENT) return errors::not_found(what, " '", path, "' does not exist");
    return errors::permission_denied(what, " '", path, "' cannot be read: ",
                                     err != 0 ? std::strerror(err) : "unknown reason");
  }
  bio_ptr in(BIO_new_file(path.c_str(), "r"));
  if (!in) return errors::permission_denied(what, " '", path, "' cannot be read", openssl_reason());
  return in;
}

}  // namespace caflow::certs
