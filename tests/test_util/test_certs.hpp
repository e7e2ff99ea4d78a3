#pragma once
// A throw-away CA with server and client certificates (scripts/make_test_certs.sh) in a
// temporary directory that goes with the object; `made` is false when the openssl command is
// missing, and tests then skip with a message. A script that fails throws: a test that
// silently skips could never fail.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "net/security/transport_security.hpp"

namespace caflow::testing {

struct test_certs {
  std::filesystem::path dir;
  bool made = false;

  explicit test_certs(const std::string& prefix) {
    if (std::system("command -v openssl >/dev/null 2>&1") != 0) return;
    dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
    // The source tree's scripts/, from the build (ccache's base directory makes __FILE__
    // relative, so it cannot be found from here).
    const std::filesystem::path script = CAFLOW_SOURCE_DIR "/scripts/make_test_certs.sh";
    const std::string cmd = "bash '" + script.string() + "' '" + dir.string() + "' >/dev/null";
    if (std::system(cmd.c_str()) != 0)
      throw std::runtime_error("test certificates: '" + cmd + "' failed");
    made = true;
  }
  ~test_certs() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
  test_certs(const test_certs&) = delete;
  test_certs& operator=(const test_certs&) = delete;

  std::string file(const std::string& name) const { return (dir / name).string(); }
  // `who` ("server" or "client") with its key, trusting `ca`.
  transport_security as(const std::string& who, const std::string& ca = "ca.pem") const {
    return {.cert = file(who + ".pem"), .key = file(who + ".key"), .ca = file(ca)};
  }
};

}  // namespace caflow::testing
