#pragma once
// A cluster's certificate authority on disk: DIR/ca.pem, the certificate every process trusts
// (--tls-ca), and DIR/ca.key, its private key (mode 0600), which signs the task and client
// certificates. Whoever holds ca.key can join the cluster: keep it off the cluster's hosts.
#include <string>
#include <vector>

#include "certificate.hpp"
#include "key_pair.hpp"

namespace caflow::certs {

struct ca_options {
  std::string name = "caflow cluster CA";  // the certificate's common name
  int days = 3650;
  bool force = false;  // replace an existing CA (every certificate it signed stops working)
};

// Makes a new CA in `dir` (created when missing). Refused, with nothing written, when ca.pem or
// ca.key exists there, unless options.force. Returns the files written.
status_or<std::vector<std::string>> create_ca(const std::string& dir, const ca_options& options);

struct loaded_ca {
  certificate cert;
  private_key key;
};

// Reads DIR's CA: both files must exist and parse, the key must be the certificate's and the
// certificate a CA's. Errors name the file and say how to make one.
status_or<loaded_ca> load_ca(const std::string& dir);

std::string ca_cert_path(const std::string& dir);
std::string ca_key_path(const std::string& dir);

}  // namespace caflow::certs
