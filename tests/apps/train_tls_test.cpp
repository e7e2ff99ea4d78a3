// caflow-train with --tls-cert/--tls-key/--tls-ca and --cluster-id: its embedded cluster's
// servers (in-process, and as caflow-server processes) require TLS, so training only gets
// anywhere when its own sessions present the certificate too.
#include <doctest/doctest.h>

#include "test_util/process.hpp"
#include "test_util/test_certs.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;
using caflow::testing::have_fashion_mnist;
using caflow::testing::test_certs;

namespace {

std::vector<std::string> tls_train_args(const test_certs& certs, bool processes) {
  std::vector<std::string> args{CAFLOW_TRAIN_BINARY, "--epochs", "1", "--train-limit", "3000",
                                "--test-limit", "500", "--batch-size", "50", "--threads", "1",
                                "--no-progress", "--tls-cert", certs.file("server.pem"),
                                "--tls-key", certs.file("server.key"), "--tls-ca",
                                certs.file("ca.pem"), "--cluster-id", "train-tls-test"};
  if (processes) args.push_back("--task-processes");
  return args;
}

}  // namespace

TEST_CASE("caflow-train trains on a TLS cluster, in-process and as server processes") {
  if (!have_fashion_mnist()) return;
  const test_certs certs("caflow_train_tls_");
  if (!certs.made) {
    MESSAGE("skipped: the openssl command is missing");
    return;
  }
  for (bool processes : {false, true}) {
    CAPTURE(processes);
    child_process train(tls_train_args(certs, processes));
    const int rc = exit_code(train, 180s);
    MESSAGE("caflow-train: ", train.output());
    CHECK(rc == 0);
    CHECK(train.output().find("test accuracy:") != std::string::npos);
    CHECK(train.output().find("was lost") == std::string::npos);
  }
}

TEST_CASE("caflow-train names an unreadable certificate") {
  child_process train({CAFLOW_TRAIN_BINARY, "--tls-cert", "/nonexistent/cert.pem", "--tls-key",
                       "/nonexistent/key.pem", "--tls-ca", "/nonexistent/ca.pem"});
  CHECK(exit_code(train, 30s) == 1);
  CHECK(train.output().find("/nonexistent/cert.pem") != std::string::npos);
}
