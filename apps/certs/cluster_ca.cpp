#include "cluster_ca.hpp"

#include <openssl/x509v3.h>

#include <filesystem>

#include "private_files.hpp"

namespace caflow::certs {

std::string ca_cert_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "ca.pem").string();
}
std::string ca_key_path(const std::string& dir) {
  return (std::filesystem::path(dir) / "ca.key").string();
}

status_or<std::vector<std::string>> create_ca(const std::string& dir, const ca_options& options) {
  if (options.name.empty()) return errors::invalid_argument("--name must not be empty");
  if (options.days < 1) return errors::invalid_argument("--days must be at least 1, not ", options.days);
  const std::string cert_path = ca_cert_path(dir), key_path = ca_key_path(dir);
  CAFLOW_RETURN_IF_ERROR(prepare_directory(dir));
  // The key first: an existing ca.key is the one thing that cannot be made again.
  CAFLOW_RETURN_IF_ERROR(check_absent({key_path, cert_path}, options.force));
  CAFLOW_ASSIGN_OR_RETURN(auto key, generate_key());
  CAFLOW_ASSIGN_OR_RETURN(auto cert, make_ca_certificate(options.name, options.days, key.get()));
  CAFLOW_ASSIGN_OR_RETURN(auto key_pem, key_to_pem(key.get()));
  CAFLOW_ASSIGN_OR_RETURN(auto cert_pem, certificate_to_pem(cert.get()));
  CAFLOW_RETURN_IF_ERROR(write_file(key_path, key_pem, 0600, options.force));
  CAFLOW_RETURN_IF_ERROR(write_file(cert_path, cert_pem, 0644, options.force));
  return std::vector<std::string>{cert_path, key_path};
}

status_or<loaded_ca> load_ca(const std::string& dir) {
  const std::string cert_path = ca_cert_path(dir), key_path = ca_key_path(dir);
  const std::string hint = " (make a CA with 'caflow-certs ca " + dir + "')";
  auto cert = read_certificate(cert_path, "CA certificate");
  if (!cert.ok()) return status(cert.get_status().code(), cert.get_status().message() + hint);
  auto key = read_key(key_path, "CA key");
  if (!key.ok()) return status(key.get_status().code(), key.get_status().message() + hint);
  if (X509_check_ca(cert->get()) == 0)
    return errors::invalid_argument("CA certificate '", cert_path, "' is not a CA certificate", hint);
  if (X509_check_private_key(cert->get(), key->get()) != 1)
    return errors::invalid_argument("CA key '", key_path, "' is not the key of CA certificate '",
                                    cert_path, "'", openssl_reason());
  return loaded_ca{std::move(*cert), std::move(*key)};
}

}  // namespace caflow::certs
