#pragma once
// X.509 certificates for a cluster: its CA's, self-signed, and the ones that CA signs for tasks
// and clients. The extensions are those of scripts/make_test_certs.sh: CAF authenticates both
// ends of a connection with one certificate, and a task both accepts connections and opens them,
// so every issued certificate is good for TLS server and client alike.
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <string>
#include <vector>

#include "graph/core/status.hpp"
#include "net/security/openssl_handles.hpp"

namespace caflow::certs {

using certificate = openssl_ptr<X509, X509_free>;

struct certificate_request {
  std::string common_name;         // "caflow /job:ps/replica:0/task:0", "caflow client console"
  std::vector<std::string> hosts;  // subjectAltName: IP entries for addresses, DNS for names
  int days = 365;
};

// A self-signed CA certificate for `key`: basicConstraints CA:TRUE with path length 0 (it signs
// task and client certificates, never another CA), keyUsage keyCertSign and cRLSign.
status_or<certificate> make_ca_certificate(const std::string& name, int days, EVP_PKEY* key);

// A certificate for `key` signed by the CA: basicConstraints CA:FALSE, keyUsage
// digitalSignature, extendedKeyUsage serverAuth and clientAuth, the hosts as subjectAltName.
status_or<certificate> issue_certificate(const certificate_request& request, EVP_PKEY* key,
                                         X509* ca, EVP_PKEY* ca_key);

status_or<std::string> certificate_to_pem(X509* cert);
// `what` names the file in errors ("CA certificate").
status_or<certificate> read_certificate(const std::string& path, const std::string& what);

// "IP:10.0.0.1" or "DNS:host": how OpenSSL's subjectAltName syntax names `host`.
std::string subject_alt_name(const std::string& host);

}  // namespace caflow::certs
