#pragma once
// A throw-away CA with server and client certificates (scripts/make_test_certs.sh) in a
// temporary directory that goes with the object; `made` is false when the openssl command is
// missing or failed, and tests then skip with a message.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "net/transport_security.hpp"

namespace caflow::testing {

struct test_certs {
  std::filesystem::path dir;
  bool made = false;

  explicit test_certs(const std::string& prefix) {
    if (std::system("command -v openssl >/dev/null 2>&1") != 0) return;
    dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
    // This header is tests/test_util/test_certs.hpp of the source tree.
    const auto script = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                        "scripts" / "make_test_certs.sh";
    const std::string cmd = "bash '" + script.string() + "' '" + dir.string() + "' >/dev/null";
    made = std::system(cmd.c_str()) == 0;
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
