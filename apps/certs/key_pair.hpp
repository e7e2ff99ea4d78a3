#pragma once
// The private keys caflow-certs makes: EC P-256. Why not RSA 3072: the same strength
// (128-bit) from a key made in a millisecond instead of a second or more (a cluster of many
// tasks gets its certificates at once), with smaller certificates and handshakes, and every TLS
// 1.2/1.3 peer, CAF's OpenSSL sessions included, offers ECDHE-ECDSA cipher suites.
#include <openssl/evp.h>

#include <string>

#include "graph/core/status.hpp"
#include "net/security/openssl_handles.hpp"

namespace caflow::certs {

using private_key = openssl_ptr<EVP_PKEY, EVP_PKEY_free>;

status_or<private_key> generate_key();

// Unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY"): servers start unattended, so no passphrase
// (net/security/transport_security.cpp refuses an encrypted key); the file's mode protects it instead.
status_or<std::string> key_to_pem(EVP_PKEY* key);

// `what` names the file in errors ("CA key"). An encrypted key is refused, not prompted for.
status_or<private_key> read_key(const std::string& path, const std::string& what);

}  // namespace caflow::certs
