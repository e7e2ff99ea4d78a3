#pragma once
// Blocking TCP sockets for the bulk tensor channel (net/bulk/bulk_*.hpp): an owning descriptor,
// listen, connect with a deadline, and whole-buffer reads and writes. Everything else on the
// network goes through CAF's middleman.
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "graph/core/status.hpp"

namespace caflow {

// Owns a file descriptor; closes it on destruction. Move-only.
class socket_fd {
 public:
  socket_fd() = default;
  explicit socket_fd(int fd) : fd_(fd) {}
  socket_fd(socket_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  socket_fd& operator=(socket_fd&& other) noexcept;
  socket_fd(const socket_fd&) = delete;
  socket_fd& operator=(const socket_fd&) = delete;
  ~socket_fd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Wakes a thread blocked in accept, read or write on this socket (it sees an error or the
  // end of the stream); the descriptor stays open until destruction, so it is never reused
  // under that thread.
  void shut_down() const;

 private:
  int fd_ = -1;
};

// A socket listening on `host` (a name or an address) and `port` (0: any free one). Errors
// name the address.
status_or<socket_fd> listen_on(const std::string& host, uint16_t port);
// The port a listening socket is bound to.
uint16_t bound_port(const socket_fd& listener);

// A connection to host:port, established within `timeout`. Errors name the address.
status_or<socket_fd> connect_to(const std::string& host, uint16_t port,
                                std::chrono::milliseconds timeout);

// The next connection on `listener`; invalid once the listener is shut down.
socket_fd accept_from(const socket_fd& listener);
// The address (without port) of the peer of a connected socket, as text; "?" when unknown.
std::string peer_address(const socket_fd& s);
// Whether `s` becomes readable (for a listener: a connection waits, or it was shut down) within
// `timeout`.
bool wait_readable(const socket_fd& s, std::chrono::milliseconds timeout);

// How long a blocking read (receive) or write (send) on `s` may make no progress before it
// fails; zero: forever.
void set_receive_timeout(const socket_fd& s, std::chrono::milliseconds t);
void set_send_timeout(const socket_fd& s, std::chrono::milliseconds t);

// Writes every byte of `parts`, in order (never raising SIGPIPE). Errors say why.
status write_all(const socket_fd& s, std::span<iovec> parts);
// Reads exactly `bytes` bytes into `into`. False at the end of the stream or on an error.
bool read_exact(const socket_fd& s, void* into, size_t bytes);

}  // namespace caflow
