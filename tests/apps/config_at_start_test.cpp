// caflow-server, caflow-train and caflow-console (real binaries) check the files their flags
// name before anything serves, connects or trains: a certificate that is no PEM, a key that is
// not the certificate's, a --checkpoint-dir that cannot be written. Each is one line naming the
// flag and the file, and exit 1: never "serving at" followed by an abort() at the first
// connection (exit 134, as CAF 0.17 does with a bad file), never a hang until the first save.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_util/process.hpp"
#include "test_util/test_certs.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::test_certs;

namespace {

struct bad_start {
  int exit_code = -1;  // -1: it did not exit by itself (or died of a signal)
  std::string output;
};

bad_start run(const std::vector<std::string>& argv) {
  child_process p(argv);
  const int raw = p.wait_exit(30s);
  bad_start r;
  r.output = p.output();
  if (raw >= 0 && WIFEXITED(raw)) r.exit_code = WEXITSTATUS(raw);
  return r;
}

size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// Exit 1 with exactly one line, which holds `message`, and nothing served.
void check_refused(const bad_start& r, const std::string& message) {
  INFO("output: ", r.output);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find(message) != std::string::npos);
  CHECK(r.output.find("serving at") == std::string::npos);
}

struct bad_files {
  const test_certs& certs;
  std::string not_pem = (certs.dir / "not_pem.txt").string();
  explicit bad_files(const test_certs& c) : certs(c) {
    std::ofstream(not_pem) << "this is no certificate\n";
  }
  // --tls-* flags with a non-PEM certificate, or the client's key beside the server's cert.
  std::vector<std::string> not_pem_flags() const {
    return {"--tls-cert",        not_pem, "--tls-key", certs.file("server.key"), "--tls-ca",
            certs.file("ca.pem")};
  }
  std::vector<std::string> wrong_key_flags() const {
    return {"--tls-cert", certs.file("server.pem"), "--tls-key", certs.file("client.key"),
            "--tls-ca",   certs.file("ca.pem")};
  }
  std::string not_pem_message() const {
    return "--tls-cert file '" + not_pem + "' holds no PEM certificate";
  }
  std::string wrong_key_message() const {
    return "--tls-key file '" + certs.file("client.key") +
           "' is not the key of the certificate in --tls-cert file '" + certs.file("server.pem") +
           "'";
  }
};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

#define REQUIRE_CERTS(certs)                                                           \
  if (!(certs).made) {                                                                 \
    MESSAGE("skipped: the openssl command is missing"); \
    return;                                                                            \
  }

}  // namespace

TEST_CASE("caflow-server refuses bad TLS files before serving: one line, exit 1") {
  const test_certs certs("caflow_config_server_");
  REQUIRE_CERTS(certs);
  const bad_files bad(certs);
  const int port = caflow::testing::free_ports(1)[0];
  const std::vector<std::string> server = {CAFLOW_SERVER_BINARY,
                                           "--cluster",
                                           "ps=127.0.0.1:" + std::to_string(port),
                                           "--job",
                                           "ps",
                                           "--task",
                                           "0"};
  check_refused(run(server + bad.not_pem_flags()), "caflow-server: " + bad.not_pem_message());
  check_refused(run(server + bad.wrong_key_flags()), "caflow-server: " + bad.wrong_key_message());
}

TEST_CASE("caflow-console refuses bad TLS files before connecting: one line, exit 1") {
  const test_certs certs("caflow_config_console_");
  REQUIRE_CERTS(certs);
  const bad_files bad(certs);
  // Nothing listens there: the files are refused before any connection is tried.
  const std::vector<std::string> console = {CAFLOW_CONSOLE_BINARY, "--connect", "127.0.0.1:1",
                                            "--exec", "cluster"};
  check_refused(run(console + bad.not_pem_flags()), "caflow-console: " + bad.not_pem_message());
  check_refused(run(console + bad.wrong_key_flags()), "caflow-console: " + bad.wrong_key_message());
}

TEST_CASE("caflow-train refuses bad TLS files and an unwritable --checkpoint-dir at once") {
  const test_certs certs("caflow_config_train_");
  REQUIRE_CERTS(certs);
  const bad_files bad(certs);
  const std::vector<std::string> train = {CAFLOW_TRAIN_BINARY, "--epochs", "1", "--no-progress"};
  check_refused(run(train + bad.not_pem_flags()), bad.not_pem_message());
  check_refused(run(train + bad.wrong_key_flags()), bad.wrong_key_message());
  // As a ps task of a hand-started cluster too: refused before it serves.
  const int port = caflow::testing::free_ports(1)[0];
  check_refused(run(train +
                    std::vector<std::string>{"--cluster", "ps=127.0.0.1:" + std::to_string(port),
                                             "--job", "ps", "--task", "0"} +
                    bad.wrong_key_flags()),
                bad.wrong_key_message());
  // Transports are 0 or 1: CLI11 would read any other number as true.
  check_refused(run(train + std::vector<std::string>{"--same-host-transports", "2"}),
                "--same-host-transports: 2 not in {0,1}");
  // A directory in which no file can be created (even by root): found by writing a probe file,
  // not at the first save.
  check_refused(run(train + std::vector<std::string>{"--checkpoint-dir", "/proc"}),
                "--checkpoint-dir '/proc' is not writable");
  // A file where the directory should be.
  const std::string file = certs.file("ckpt_is_a_file");
  std::ofstream(file) << "x";
  check_refused(run(train + std::vector<std::string>{"--checkpoint-dir", file}),
                "--checkpoint-dir '" + file + "' exists and is not a directory");
  // A directory that does not exist yet is created, and the probe file removed.
  const auto fresh = certs.dir / "ckpt" / "run1";
  child_process ok(train + std::vector<std::string>{"--checkpoint-dir", fresh.string(),
                                                    "--train-limit", "100", "--test-limit", "50",
                                                    "--data-dir", "/nonexistent"});
  (void)ok.wait_exit(30s);
  CHECK(std::filesystem::is_directory(fresh));
  CHECK(std::filesystem::is_empty(fresh));
}
