// caflow-certs (the real binary) refuses bad input with one line on stderr naming the culprit,
// exit 2 for a bad command line and 1 for files, and writes nothing: a missing, unparsable or
// mismatched CA, a bad --cluster spec or --client name, a directory that cannot be made, and
// files that exist without --force (which keeps a CA key from being lost by mistake).
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util/process.hpp"
#include "test_util/temp_dir.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

struct outcome {
  int exit_code = -1;  // -1: killed or still running after the wait
  std::string output;
};

outcome certs(std::vector<std::string> args) {
  args.insert(args.begin(), CAFLOW_CERTS_BINARY);
  child_process p(args);
  const int raw = p.wait_exit(30s);
  outcome r;
  r.output = p.output();
  if (raw >= 0 && WIFEXITED(raw)) r.exit_code = WEXITSTATUS(raw);
  return r;
}

// Exit `code`, exactly one line, holding `message` in full.
void check_refused(const outcome& r, int code, const std::string& message) {
  INFO("output: ", r.output);
  CHECK(r.exit_code == code);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(r.output.find("caflow-certs: " + message) != std::string::npos);
}

std::string read(const std::string& path) {
  std::ostringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

size_t files_in(const std::string& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

}  // namespace

TEST_CASE("issuing without a usable CA names the CA file and how to make one") {
  const temp_dir dir("caflow_certs_noca_");
  const std::string d = dir.path.string();
  check_refused(certs({"issue", d, "--client", "console"}), 1,
                "CA certificate '" + d + "/ca.pem' does not exist (make a CA with 'caflow-certs ca " +
                    d + "')");
  std::ofstream(d + "/ca.pem") << "no certificate here\n";
  check_refused(certs({"issue", d, "--client", "console"}), 1,
                "CA certificate '" + d + "/ca.pem' holds no PEM certificate");
  fs::remove(d + "/ca.pem");

  // One CA's certificate beside another CA's key.
  const temp_dir other("caflow_certs_other_");
  REQUIRE(certs({"ca", d}).exit_code == 0);
  REQUIRE(certs({"ca", other.path.string()}).exit_code == 0);
  fs::copy_file(other.file("ca.key"), d + "/ca.key", fs::copy_options::overwrite_existing);
  check_refused(certs({"issue", d, "--client", "console"}), 1,
                "CA key '" + d + "/ca.key' is not the key of CA certificate '" + d + "/ca.pem'");
  fs::remove(d + "/ca.key");
  check_refused(certs({"issue", d, "--client", "console"}), 1,
                "CA key '" + d + "/ca.key' does not exist");
  // A task certificate is no CA.
  REQUIRE(certs({"issue", other.path.string(), "--client", "x"}).exit_code == 0);
  fs::copy_file(other.file("x.pem"), d + "/ca.pem", fs::copy_options::overwrite_existing);
  fs::copy_file(other.file("x.key"), d + "/ca.key", fs::copy_options::overwrite_existing);
  check_refused(certs({"issue", d, "--client", "console"}), 1,
                "CA certificate '" + d + "/ca.pem' is not a CA certificate");
  CHECK(!fs::exists(d + "/console.pem"));
}

TEST_CASE("a CA is not replaced without --force, and certificates are not either") {
  const temp_dir dir("caflow_certs_force_");
  const std::string d = dir.file("pki");
  REQUIRE(certs({"ca", d}).exit_code == 0);
  const std::string key = read(d + "/ca.key");
  check_refused(certs({"ca", d}), 1, "'" + d + "/ca.key' exists; nothing was written (--force replaces it)");
  CHECK(read(d + "/ca.key") == key);

  const std::string spec = "ps=127.0.0.1:2222;worker=127.0.0.1:2223";
  REQUIRE(certs({"issue", d, "--cluster", spec}).exit_code == 0);
  const std::string ps_cert = read(d + "/ps-0.pem");
  // worker-0's files are gone, ps-0's are there: the whole command is refused, nothing written.
  fs::remove(d + "/worker-0.pem");
  fs::remove(d + "/worker-0.key");
  check_refused(certs({"issue", d, "--cluster", spec}), 1,
                "'" + d + "/ps-0.pem' exists; nothing was written (--force replaces it)");
  CHECK(read(d + "/ps-0.pem") == ps_cert);
  CHECK(!fs::exists(d + "/worker-0.pem"));
  CHECK(files_in(d) == 4);  // ca.{pem,key}, ps-0.{pem,key}: no temporary files left

  auto forced = certs({"issue", d, "--cluster", spec, "--force"});
  CHECK_MESSAGE(forced.exit_code == 0, forced.output);
  CHECK(read(d + "/ps-0.pem") != ps_cert);
  CHECK(fs::exists(d + "/worker-0.pem"));
  forced = certs({"ca", d, "--force"});
  CHECK_MESSAGE(forced.exit_code == 0, forced.output);
  CHECK(read(d + "/ca.key") != key);
}

TEST_CASE("a bad --cluster spec, --client name or command line is exit 2 naming it") {
  const temp_dir dir("caflow_certs_usage_");
  const std::string d = dir.path.string();
  REQUIRE(certs({"ca", d}).exit_code == 0);
  // The message is cluster_spec's own, after the flag.
  auto r = certs({"issue", d, "--cluster", "ps=127.0.0.1"});
  check_refused(r, 2, "--cluster: ");
  CHECK(r.output.find("'127.0.0.1'") != std::string::npos);
  check_refused(certs({"issue", d, "--client", "../escape"}), 2,
                "--client '../escape' is not a name of 1-64 letters");
  check_refused(certs({"issue", d, "--client", "ca"}), 2,
                "--client 'ca' would replace the CA's files ca.pem and ca.key");
  check_refused(certs({"issue", d}), 2, "issue needs --cluster SPEC (task certificates) or --client NAME");
  check_refused(certs({"issue", d, "--cluster", "ps=127.0.0.1:1", "--client", "x"}), 2, "--cluster excludes --client");
  check_refused(certs({"ca", d, "--days", "0"}), 2, "--days");
  check_refused(certs({"ca"}), 2, "DIR is required");
  check_refused(certs({"mint", d}), 2, "unknown command 'mint': 'ca' or 'issue'");
  CHECK(files_in(d) == 2);
}

TEST_CASE("a directory that cannot be made is named") {
  const temp_dir dir("caflow_certs_nodir_");
  std::ofstream(dir.file("a_file")) << "x";
  // Root may write anywhere, so the directory lies under a file: no permission can make it.
  const std::string d = dir.file("a_file") + "/certs";
  check_refused(certs({"ca", d}), 1, "directory '" + d + "' cannot be created: Not a directory");
  check_refused(certs({"ca", dir.file("a_file")}), 1,
                "directory '" + dir.file("a_file") + "' is not a directory");
}
