#include "net/unix_io.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace caflow {
namespace {

// Waits for `events` on `s` until `deadline`; EINTR just waits again for the time left.
status wait_until(const socket_fd& s, short events, io_deadline deadline, const char* what) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Rounded up, so a wait never spins with a timeout of 0 before the deadline.
    const int ms = static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1 << 30));
    pollfd p{s.get(), events, 0};
    const int rc = left.count() < 0 ? 0 : ::poll(&p, 1, ms);
    if (rc > 0) return {};
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return errors::internal("poll (", what, ") failed: ", std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline)
      return errors::deadline_exceeded("timed out waiting for ", what);
  }
}

}  // namespace

status wait_readable_until(const socket_fd& s, io_deadline deadline, const char* what) {
  return wait_until(s, POLLIN, deadline, what);
}

status wait_writable_until(const socket_fd& s, io_deadline deadline, const char* what) {
  return wait_until(s, POLLOUT, deadline, what);
}

status read_exact_until(const socket_fd& s, void* into, size_t bytes, io_deadline deadline,
                        const char* what) {
  auto* p = static_cast<char*>(into);
  size_t got = 0;
  while (got < bytes) {
    CAFLOW_RETURN_IF_ERROR(wait_until(s, POLLIN, deadline, what));
    const ssize_t n = ::recv(s.get(), p + got, bytes - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0 || errno == ECONNRESET) {
      // ECONNRESET: the peer closed with bytes of ours still unread, the same end for us.
      return errors::unavailable("peer closed the connection during ", what, " after ", got,
                                 " of ", bytes, " bytes");
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return errors::unavailable("recv (", what, ") failed: ", std::strerror(errno));
    }
  }
  return {};
}

status write_all_until(const socket_fd& s, const void* from, size_t bytes, io_deadline deadline,
                       const char* what) {
  const auto* p = static_cast<const char*>(from);
  size_t sent = 0;
  while (sent < bytes) {
    CAFLOW_RETURN_IF_ERROR(wait_until(s, POLLOUT, deadline, what));
    const ssize_t n = ::send(s.get(), p + sent, bytes - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) sent += static_cast<size_t>(n);
    else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return errors::unavailable("send (", what, ") failed: ", std::strerror(errno));
  }
  return {};
}

status check_peer_uid(const socket_fd& s, uid_t expected_uid) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return errors::internal("getsockopt(SO_PEERCRED) failed: ", std::strerror(errno));
  if (cred.uid != expected_uid)
    return errors::permission_denied("peer process ", static_cast<long>(cred.pid),
                                     " runs as uid ", static_cast<unsigned long>(cred.uid),
                                     ", but only uid ", static_cast<unsigned long>(expected_uid),
                                     " (this cluster's) may share memory with it");
  return {};
}

}  // namespace caflow
