#include "key_pair.hpp"

#include <openssl/bio.h>
#include <openssl/pem.h>

#include "pem_text.hpp"

namespace caflow::certs {

status_or<private_key> generate_key() {
  private_key key(EVP_EC_gen("P-256"));
  if (!key) return errors::internal("cannot make an EC P-256 key", openssl_reason());
  return key;
}

status_or<std::string> key_to_pem(EVP_PKEY* key) {
  return pem_text([key](BIO* out) {
    return PEM_write_bio_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  });
}

status_or<private_key> read_key(const std::string& path, const std::string& what) {
  CAFLOW_ASSIGN_OR_RETURN(auto in, open_pem_file(path, what));
  private_key key(PEM_read_bio_PrivateKey(
      in.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr));
  if (!key)
    return errors::invalid_argument(what, " '", path, "' holds no unencrypted PEM private key",
                                    openssl_reason());
  return key;
}

}  // namespace caflow::certs
