#pragma once
// The console's link to one task's admin actor: its own actor system with the middleman, the
// admin found by name on the task's port, and blocking questions with bounded timeouts. A
// cluster-wide question goes to that admin, which gathers the answers of the tasks its device
// filters admit; when they leave some out, the console gathers every task's answer itself.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "graph/core/status.hpp"
#include "net/admin_protocol.hpp"
#include "net/security/transport_security.hpp"

namespace caflow::console {

class admin_client {
 public:
  // Errors name the address (malformed, unreachable, no admin there).
  static status_or<std::unique_ptr<admin_client>> connect(const std::string& address,
                                                          std::chrono::milliseconds patience,
                                                          const transport_security& security = {});
  ~admin_client();

  status_or<admin_reply> ask(std::vector<std::string> words, std::chrono::milliseconds timeout);
  const std::string& address() const;

 private:
  struct impl;
  explicit admin_client(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace caflow::console
