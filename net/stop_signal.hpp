#pragma once
// Tells a thread that waits in poll() to stop: an eventfd it polls beside its other
// descriptors, raised once by the owner before joining it (net/ring/ring_listener.hpp,
// net/shm/shm_receiver.hpp). Owns the descriptor; move-only.
#include <utility>

#include "graph/core/status.hpp"

namespace caflow {

class stop_signal {
 public:
  // Errors: eventfd's, naming it.
  static status_or<stop_signal> make();
  stop_signal(stop_signal&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  stop_signal& operator=(stop_signal&&) = delete;
  stop_signal(const stop_signal&) = delete;
  stop_signal& operator=(const stop_signal&) = delete;
  ~stop_signal();

  // Makes fd() readable for good.
  void raise();
  // To poll for POLLIN.
  int fd() const { return fd_; }

 private:
  explicit stop_signal(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace caflow
