// Plaintext only where the cluster id can be a secret (every task on loopback, an id other than
// the default) or with --insecure; caflow-server refuses otherwise, before it serves.
#include <doctest/doctest.h>

#include <chrono>

#include "net/security/plaintext_policy.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;

namespace {

cluster_spec spec(const std::string& flag) {
  auto s = cluster_spec::from_flag(flag);
  REQUIRE(s.ok());
  return *s;
}

transport_security with_id(const std::string& id) {
  transport_security sec;
  sec.cluster_id = id;
  return sec;
}

}  // namespace

TEST_CASE("plaintext: a secret id on loopback, TLS or --insecure; nothing else") {
  const cluster_spec local = spec("ps=127.0.0.1:2222;worker=localhost:2223,127.0.0.2:2224");
  const cluster_spec remote = spec("ps=10.0.0.1:2222;worker=127.0.0.1:2223");
  CHECK(all_on_loopback(local));
  CHECK_FALSE(all_on_loopback(remote));
  check_error(check_plaintext_allowed(local, {}, false),
              "refusing to serve in plaintext with the well-known cluster id 'caflow'");
  CHECK(check_plaintext_allowed(local, with_id("s3cret"), false).ok());
  CHECK(check_plaintext_allowed(local, {}, true).ok());
  // Across hosts a cluster id travels in clear: only TLS or --insecure.
  check_error(check_plaintext_allowed(remote, with_id("s3cret"), false),
              "refusing to serve in plaintext across hosts");
  CHECK(check_plaintext_allowed(remote, with_id("s3cret"), true).ok());
  transport_security tls;
  tls.cert = "c.pem";
  tls.key = "k.pem";
  tls.ca = "ca.pem";
  CHECK(check_plaintext_allowed(remote, tls, false).ok());
}

TEST_CASE("caflow-server refuses plaintext with the default id, and warns with --insecure") {
  const std::string cluster = "ps=127.0.0.1:" + std::to_string(caflow::testing::free_ports(1)[0]);
  caflow::testing::child_process refused(
      {CAFLOW_SERVER_BINARY, "--cluster", cluster, "--job", "ps", "--task", "0"});
  CHECK(caflow::testing::exit_code(refused, 30s) == 1);
  CHECK(refused.output().find("caflow-server: refusing to serve in plaintext") !=
        std::string::npos);
  CHECK(refused.output().find("serving at") == std::string::npos);

  caflow::testing::child_process warned(
      {CAFLOW_SERVER_BINARY, "--insecure", "--cluster", cluster, "--job", "ps", "--task", "0"});
  CHECK(warned.wait_for_output("serving at", 30s));
  CHECK(warned.output().find("warning: --insecure") != std::string::npos);

  caflow::testing::child_process secret(
      {CAFLOW_SERVER_BINARY, "--cluster-id", "a-secret", "--cluster",
       "ps=127.0.0.1:" + std::to_string(caflow::testing::free_ports(1)[0]), "--job", "ps",
       "--task", "0"});
  CHECK(secret.wait_for_output("serving at", 30s));
  CHECK(secret.output().find("warning") == std::string::npos);
}
