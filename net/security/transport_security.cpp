#include "net/security/transport_security.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "net/security/openssl_handles.hpp"

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

status_or<openssl_ptr<BIO, BIO_free_all>> open_pem(const char* flag, const std::string& path) {
  openssl_ptr<BIO, BIO_free_all> bio(BIO_new_file(path.c_str(), "r"));
  if (!bio)
    return errors::invalid_argument(flag, " file '", path, "' cannot be opened", openssl_reason());
  return bio;
}

// Parsed here, at start-up, so a bad file is a one-line error instead of a failed handshake
// (or CAF 0.17's abort) at the first connection.
status_or<openssl_ptr<X509, X509_free>> read_certificate(const char* flag,
                                                         const std::string& path) {
  CAFLOW_ASSIGN_OR_RETURN(auto bio, open_pem(flag, path));
  openssl_ptr<X509, X509_free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert)
    return errors::invalid_argument(flag, " file '", path, "' holds no PEM certificate",
                                    openssl_reason());
  return cert;
}

status check_tls_files(const transport_security& sec) {
  CAFLOW_ASSIGN_OR_RETURN(auto cert, read_certificate("--tls-cert", sec.cert));
  CAFLOW_ASSIGN_OR_RETURN(auto key_file, open_pem("--tls-key", sec.key));
  // No passphrase callback: an encrypted key cannot be used by a server that starts unattended.
  openssl_ptr<EVP_PKEY, EVP_PKEY_free> key(
      PEM_read_bio_PrivateKey(key_file.get(), nullptr, [](char*, int, int, void*) { return 0; },
                              nullptr));
  if (!key)
    return errors::invalid_argument("--tls-key file '", sec.key,
                                    "' holds no unencrypted PEM private key", openssl_reason());
  if (X509_check_private_key(cert.get(), key.get()) != 1)
    return errors::invalid_argument("--tls-key file '", sec.key,
                                    "' is not the key of the certificate in --tls-cert file '",
                                    sec.cert, "'", openssl_reason());
  return read_certificate("--tls-ca", sec.ca).get_status();
}

}  // namespace

status validate(const transport_security& sec) {
  if (sec.cluster_id.empty()) return errors::invalid_argument("--cluster-id must not be empty");
  if (!sec.tls()) return {};
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-cert", sec.cert));
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-key", sec.key));
  CAFLOW_RETURN_IF_ERROR(check_readable("--tls-ca", sec.ca));
  return check_tls_files(sec);
}

}  // namespace caflow
