// caflow-certs' CA and certificates (apps/certs) are what caflow's own start-up check of TLS
// files accepts (net/security/transport_security.hpp: the --tls-cert/--tls-key/--tls-ca check of
// caflow-server, caflow-train and caflow-console), chain to their CA, are good for TLS server and
// client alike, name the task's host, and keep their keys private.
#include <doctest/doctest.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <string>

#include "cluster_ca.hpp"
#include "issue.hpp"
#include "net/security/transport_security.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using namespace caflow::certs;
using caflow::testing::temp_dir;

namespace {

mode_t mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

// The subjectAltName entries of `cert` as OpenSSL prints them: "IP Address:10.0.0.1".
std::string alt_names(X509* cert) {
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return "";
  std::string out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS)
      out += "DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)));
    else if (n->type == GEN_IPADD)
      out += "IP:" + std::to_string(ASN1_STRING_length(n->d.iPAddress)) + "-byte";
    out += ";";
  }
  GENERAL_NAMES_free(names);
  return out;
}

void check_chains_to(X509* cert, X509* ca) {
  openssl_ptr<X509_STORE, X509_STORE_free> store(X509_STORE_new());
  openssl_ptr<X509_STORE_CTX, X509_STORE_CTX_free> ctx(X509_STORE_CTX_new());
  REQUIRE(X509_STORE_add_cert(store.get(), ca) == 1);
  REQUIRE(X509_STORE_CTX_init(ctx.get(), store.get(), cert, nullptr) == 1);
  const int verified = X509_verify_cert(ctx.get());
  CHECK_MESSAGE(verified == 1, X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())));
}

}  // namespace

TEST_CASE("a CA and task and client certificates pass caflow's start-up check of TLS files") {
  const temp_dir dir("caflow_certs_files_");
  const std::string d = dir.file("cluster");  // made by create_ca
  auto ca_files = create_ca(d, {.name = "test cluster CA", .days = 30});
  REQUIRE_MESSAGE(ca_files.ok(), ca_files.get_status().to_string());
  CHECK(*ca_files == std::vector<std::string>{d + "/ca.pem", d + "/ca.key"});
  CHECK(mode_of(d + "/ca.key") == 0600);
  CHECK(mode_of(d + "/ca.pem") == 0644);

  auto spec = cluster_spec::from_flag("ps=10.0.0.1:2222;worker=node-1.example:2222,[::1]:2223");
  REQUIRE(spec.ok());
  auto plan = plan_cluster(*spec, 10);
  auto client = plan_client("console", 10);
  REQUIRE(client.ok());
  plan.push_back(*client);
  auto written = issue(d, plan, false);
  REQUIRE_MESSAGE(written.ok(), written.get_status().to_string());
  CHECK(written->size() == 8);

  auto ca = load_ca(d);
  REQUIRE_MESSAGE(ca.ok(), ca.get_status().to_string());
  for (const std::string stem : {"ps-0", "worker-0", "worker-1", "console"}) {
    CAPTURE(stem);
    const transport_security sec{.cert = d + "/" + stem + ".pem", .key = d + "/" + stem + ".key",
                                 .ca = d + "/ca.pem"};
    const status st = validate(sec);
    CHECK_MESSAGE(st.ok(), st.to_string());
    CHECK(mode_of(sec.key) == 0600);
    CHECK(mode_of(sec.cert) == 0644);
    auto cert = read_certificate(sec.cert, "certificate");
    REQUIRE(cert.ok());
    check_chains_to(cert->get(), ca->cert.get());
    // Both ends of a connection show this one certificate.
    CHECK(X509_check_purpose(cert->get(), X509_PURPOSE_SSL_SERVER, 0) == 1);
    CHECK(X509_check_purpose(cert->get(), X509_PURPOSE_SSL_CLIENT, 0) == 1);
    CHECK(X509_check_ca(cert->get()) == 0);
  }
  auto ps = read_certificate(d + "/ps-0.pem", "certificate");
  auto w0 = read_certificate(d + "/worker-0.pem", "certificate");
  auto w1 = read_certificate(d + "/worker-1.pem", "certificate");
  auto console = read_certificate(d + "/console.pem", "certificate");
  CHECK(alt_names(ps->get()) == "IP:4-byte;");
  CHECK(alt_names(w0->get()) == "DNS:node-1.example;");
  CHECK(alt_names(w1->get()) == "IP:16-byte;");
  CHECK(alt_names(console->get()) == "");
  CHECK(X509_check_ip_asc(ps->get(), "10.0.0.1", 0) == 1);
  CHECK(X509_check_host(w0->get(), "node-1.example", 0, 0, nullptr) == 1);
  CHECK(X509_check_ip_asc(w1->get(), "::1", 0) == 1);
}

TEST_CASE("a host is an IP subjectAltName when it is an address, a DNS one otherwise") {
  CHECK(subject_alt_name("10.0.0.1") == "IP:10.0.0.1");
  CHECK(subject_alt_name("::1") == "IP:::1");
  CHECK(subject_alt_name("localhost") == "DNS:localhost");
}

TEST_CASE("every certificate of one CA has its own serial and key") {
  const temp_dir dir("caflow_certs_serials_");
  REQUIRE(create_ca(dir.file("c"), {}).ok());
  auto spec = cluster_spec::from_flag("worker=127.0.0.1:1,127.0.0.1:2");
  REQUIRE(issue(dir.file("c"), plan_cluster(*spec, 1), false).ok());
  auto a = read_certificate(dir.file("c/worker-0.pem"), "certificate");
  auto b = read_certificate(dir.file("c/worker-1.pem"), "certificate");
  REQUIRE((a.ok() && b.ok()));
  CHECK(ASN1_INTEGER_cmp(X509_get0_serialNumber(a->get()), X509_get0_serialNumber(b->get())) != 0);
  CHECK(EVP_PKEY_eq(X509_get0_pubkey(a->get()), X509_get0_pubkey(b->get())) != 1);
}
