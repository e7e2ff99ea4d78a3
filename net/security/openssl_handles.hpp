#pragma once
// Owning handles for OpenSSL objects and OpenSSL's reason for a failure, shared by the start-up
// check of TLS files (net/security/transport_security.cpp) and the certificate helper (apps/certs).
#include <openssl/err.h>

#include <memory>
#include <string>
#include <type_traits>

namespace caflow {

// openssl_ptr<X509, X509_free>: frees with OpenSSL's own function.
template <class T, void (*Free)(T*)>
using openssl_ptr = std::unique_ptr<T, std::integral_constant<decltype(Free), Free>>;

// OpenSSL's reason for the last failure on this thread as " (reason)", and the thread's error
// queue cleared (a stale entry would be blamed on the next call); "" when it gave none.
inline std::string openssl_reason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return std::string(" (") + buf + ")";
}

}  // namespace caflow
