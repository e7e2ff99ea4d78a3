#pragma once
// Deadlines and per-address limits for connections that have not proved themselves yet
// (net/security/basp_guard.hpp says why). One watchdog thread per process, started with the first
// accepted connection: when a connection's handshake is not done by its deadline, the thread
// shuts its socket down, and the multiplexer that reads it closes it as if the peer had left.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace caflow {

// One accepted connection, as the watchdog sees it. Thread-safe.
class connection_watch {
 public:
  connection_watch(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}
  // Its handshake is done: no deadline any more, and its address's slot is free again.
  void handshake_done();
  // It is closing. REQUIRES: called before its socket is closed (the watchdog shuts the socket
  // down under the same lock, so it never touches a descriptor that was reused).
  void closed();
  // Shuts the socket down unless the handshake is done or the connection closed; true if so.
  bool expire();

 private:
  void release_slot();  // with mu_ held
  std::mutex mu_;
  int fd_;
  std::string address_;
  bool done_ = false;
  bool closed_ = false;
  bool slot_released_ = false;
};

// Admits a connection accepted on socket `fd` from `address` and arms its deadline (`timeout`
// from now). Null when `address` has `max_pending` connections in their handshake already: the
// caller closes `fd`.
std::shared_ptr<connection_watch> watch_handshake(int fd, const std::string& address,
                                                  std::chrono::milliseconds timeout,
                                                  size_t max_pending);

// Connections from `address` admitted and neither done nor closed (for tests).
size_t pending_handshakes(const std::string& address);

}  // namespace caflow
