#include "certificate.hpp"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "pem_text.hpp"

namespace caflow::certs {
namespace {

// Clocks of a cluster's hosts differ a little: a certificate made on one host must already be
// valid on the others.
constexpr long clock_skew_seconds = 5 * 60;

status add_extension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  openssl_ptr<X509_EXTENSION, X509_EXTENSION_free> ext(
      X509V3_EXT_nconf_nid(nullptr, ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1)
    return errors::invalid_argument("cannot add extension ", OBJ_nid2sn(nid), " = ", value,
                                    openssl_reason());
  return {};
}

// Version 3, a random 159-bit serial (unique without a serial file beside the CA; 159 bits keep
// it positive and within the 20 bytes RFC 5280 allows), validity, subject and public key.
status_or<certificate> new_certificate(const std::string& common_name, int days, EVP_PKEY* key) {
  certificate cert(X509_new());
  openssl_ptr<BIGNUM, BN_free> serial(BN_new());
  if (!cert || !serial || X509_set_version(cert.get(), 2) != 1 ||
      BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -clock_skew_seconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400L * days) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1 ||
      X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                 -1, 0) != 1)
    return errors::invalid_argument("cannot make a certificate for '", common_name, "'",
                                    openssl_reason());
  return cert;
}

status sign(X509* cert, EVP_PKEY* signer, const std::string& common_name) {
  if (X509_sign(cert, signer, EVP_sha256()) <= 0)
    return errors::internal("cannot sign the certificate for '", common_name, "'", openssl_reason());
  return {};
}

}  // namespace

std::string subject_alt_name(const std::string& host) {
  unsigned char addr[16];
  const bool ip = inet_pton(AF_INET, host.c_str(), addr) == 1 ||
                  inet_pton(AF_INET6, host.c_str(), addr) == 1;
  return (ip ? "IP:" : "DNS:") + host;
}

status_or<certificate> make_ca_certificate(const std::string& name, int days, EVP_PKEY* key) {
  CAFLOW_ASSIGN_OR_RETURN(auto cert, new_certificate(name, days, key));
  X509* c = cert.get();
  if (X509_set_issuer_name(c, X509_get_subject_name(c)) != 1)
    return errors::internal("cannot name the CA '", name, "' its own issuer", openssl_reason());
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, c, c, nullptr, nullptr, 0);
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign"));
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_subject_key_identifier, "hash"));
  CAFLOW_RETURN_IF_ERROR(sign(c, key, name));
  return cert;
}

status_or<certificate> issue_certificate(const certificate_request& request, EVP_PKEY* key,
                                         X509* ca, EVP_PKEY* ca_key) {
  CAFLOW_ASSIGN_OR_RETURN(auto cert, new_certificate(request.common_name, request.days, key));
  X509* c = cert.get();
  if (X509_set_issuer_name(c, X509_get_subject_name(ca)) != 1)
    return errors::internal("cannot name the CA as issuer of '", request.common_name, "'",
                            openssl_reason());
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, ca, c, nullptr, nullptr, 0);
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_basic_constraints, "CA:FALSE"));
  // keyEncipherment (the script's RSA keys) means RSA key transport; an EC key only signs.
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_key_usage, "critical,digitalSignature"));
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_ext_key_usage, "serverAuth,clientAuth"));
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_subject_key_identifier, "hash"));
  CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_authority_key_identifier, "keyid:always"));
  if (!request.hosts.empty()) {
    std::string names;
    for (const auto& host : request.hosts)
      names += (names.empty() ? "" : ",") + subject_alt_name(host);
    CAFLOW_RETURN_IF_ERROR(add_extension(c, &ctx, NID_subject_alt_name, names));
  }
  CAFLOW_RETURN_IF_ERROR(sign(c, ca_key, request.common_name));
  return cert;
}

status_or<std::string> certificate_to_pem(X509* cert) {
  return pem_text([cert](BIO* out) { return PEM_write_bio_X509(out, cert) == 1; });
}

status_or<certificate> read_certificate(const std::string& path, const std::string& what) {
  CAFLOW_ASSIGN_OR_RETURN(auto in, open_pem_file(path, what));
  certificate cert(PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr));
  if (!cert)
    return errors::invalid_argument(what, " '", path, "' holds no PEM certificate", openssl_reason());
  return cert;
}

}  // namespace caflow::certs
