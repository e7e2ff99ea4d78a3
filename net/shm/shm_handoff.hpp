#pragma once
// The rendezvous point of the same-host shared memory transport (docs/shm_transport.md): a
// task listens on a Unix socket, a task of the same cluster on the same host connects, both
// run the handshake (net/shm/shm_handshake.hpp: same uid, proof of the cluster secret), and the
// authenticated connection then carries segment descriptors (net/shm/shm_fd_passing.hpp) either way.
//
// Where the socket lives: a path inside a fresh mkdtemp directory (mode 0700) under
// $XDG_RUNTIME_DIR, or /tmp when that is unset, not a name in the abstract namespace. The
// directory's mode keeps every other uid from connecting at all (the kernel checks it before
// our SO_PEERCRED check runs), while an abstract name is reachable by any uid in the network
// namespace and can be bound first by another user, who would then play listener. A path also
// reaches tasks that run in other network namespaces of the same host and mount namespace
// (tests/netns), as a same-host transport should. The listener removes the socket and the
// directory when it goes.
#include <chrono>
#include <string>
#include <string_view>

#include "graph/core/status.hpp"
#include "net/shm/shm_fd_passing.hpp"
#include "net/shm/shm_segment.hpp"
#include "net/unix_io.hpp"

namespace caflow {

// How long a handshake or a segment handoff may take before it fails (a stalled peer).
inline constexpr std::chrono::milliseconds shm_patience{5000};

// An authenticated connection to another task of this cluster on this host. Move-only.
class shm_channel {
 public:
  explicit shm_channel(socket_fd s) : socket_(std::move(s)) {}

  status send(const shm_segment& segment, std::chrono::milliseconds patience = shm_patience) {
    return caflow::send_segment(socket_, segment, std::chrono::steady_clock::now() + patience);
  }
  status_or<shm_segment> receive(std::chrono::milliseconds patience = shm_patience) {
    return caflow::receive_segment(socket_, std::chrono::steady_clock::now() + patience);
  }
  // The connection itself, for a poll loop that waits on several channels.
  const socket_fd& socket() const { return socket_; }

 private:
  socket_fd socket_;
};

class shm_listener {
 public:
  // Listens on a new socket in a new 0700 directory. Errors name the syscall and the path.
  static status_or<shm_listener> open();
  shm_listener(shm_listener&& other) noexcept;
  shm_listener& operator=(shm_listener&&) = delete;
  shm_listener(const shm_listener&) = delete;
  shm_listener& operator=(const shm_listener&) = delete;
  // Closes the socket, then removes it and its directory.
  ~shm_listener();

  // What a connecting task needs (it learns it over the cluster's authenticated channel).
  const std::string& path() const { return path_; }
  // The listening socket, for a poll loop that also waits on connections.
  const socket_fd& socket() const { return socket_; }

  // The next connection whose peer passes the handshake, within `patience` (which bounds the
  // wait for a connection and the handshake together). A peer that fails the handshake is
  // closed and its error returned, naming what went wrong; the listener stays usable.
  status_or<shm_channel> accept(std::string_view secret,
                                std::chrono::milliseconds patience = shm_patience);

 private:
  shm_listener(socket_fd s, std::string dir, std::string path)
      : socket_(std::move(s)), dir_(std::move(dir)), path_(std::move(path)) {}

  socket_fd socket_;
  std::string dir_;   // empty once moved from
  std::string path_;
};

// Removes the socket directories under `base` that listeners of this uid left behind: a task
// killed by a signal (a crash, SIGKILL, a SIGTERM without a handler) cannot remove its own.
// A directory goes only if it is ours and its socket is one nobody listens on: bound a minute
// ago or earlier, not bound in this network namespace now (/proc/net/unix), and refusing a
// connection (a listener in another namespace of this host accepts it); or if it has been empty
// for a minute. One without a socket yet, a live or young one, another uid's and any other name
// are left alone. Returns how many went.
// shm_listener::open() calls it.
int sweep_stale_shm_listeners(const std::string& base);

// Whether `path` may be a listener of this uid: its socket, in a directory laid out as open()
// lays it out, that this uid owns and nobody else may enter. For a path an unauthenticated
// peer named (net/ring/ring_link.hpp): nothing else is connected to, so such a peer can make this
// process wait on no socket but a listener of its own user.
bool plausible_shm_listener(const std::string& path);

// Connects to the listener at `path` and runs the handshake, within `patience`. Errors: no
// such listener (unavailable, naming the path), and the handshake's.
status_or<shm_channel> shm_connect(const std::string& path, std::string_view secret,
                                   std::chrono::milliseconds patience = shm_patience);

}  // namespace caflow
