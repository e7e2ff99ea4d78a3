#include "net/bulk/socket_io.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace caflow {
namespace {

std::string address_text(const std::string& host, uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

struct addresses {
  addrinfo* list = nullptr;
  ~addresses() {
    if (list) ::freeaddrinfo(list);
  }
};

status resolve(const std::string& host, uint16_t port, bool passive, addresses& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints,
                               &out.list);
  if (rc != 0)
    return errors::unavailable("cannot resolve ", address_text(host, port), ": ",
                               ::gai_strerror(rc));
  return {};
}

// Tensors are written in one call of many MiB; small headers must not wait for an ack.
void no_delay(int fd) {
  const int on = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

void set_timeout(const socket_fd& s, int option, std::chrono::milliseconds t) {
  const timeval tv{static_cast<time_t>(t.count() / 1000),
                   static_cast<suseconds_t>(t.count() % 1000 * 1000)};
  (void)::setsockopt(s.get(), SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

void set_receive_timeout(const socket_fd& s, std::chrono::milliseconds t) {
  set_timeout(s, SO_RCVTIMEO, t);
}

void set_send_timeout(const socket_fd& s, std::chrono::milliseconds t) {
  set_timeout(s, SO_SNDTIMEO, t);
}

socket_fd& socket_fd::operator=(socket_fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

socket_fd::~socket_fd() {
  if (fd_ >= 0) ::close(fd_);
}

bool wait_readable(const socket_fd& s, std::chrono::milliseconds timeout) {
  pollfd p{s.get(), POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) > 0;
}

void socket_fd::shut_down() const {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

status_or<socket_fd> listen_on(const std::string& host, uint16_t port) {
  addresses found;
  CAFLOW_RETURN_IF_ERROR(resolve(host, port, true, found));
  std::string last = "no address";
  for (addrinfo* a = found.list; a != nullptr; a = a->ai_next) {
    socket_fd s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!s.valid()) {
      last = std::strerror(errno);
      continue;
    }
    const int on = 1;
    (void)::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(s.get(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(s.get(), 64) == 0) return s;
    last = std::strerror(errno);
  }
  return errors::unavailable("cannot listen on ", address_text(host, port), ": ", last);
}

uint16_t bound_port(const socket_fd& listener) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return 0;
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return 0;
}

status_or<socket_fd> connect_to(const std::string& host, uint16_t port,
                                std::chrono::milliseconds timeout) {
  addresses found;
  CAFLOW_RETURN_IF_ERROR(resolve(host, port, false, found));
  std::string last = "no address";
  for (addrinfo* a = found.list; a != nullptr; a = a->ai_next) {
    socket_fd s(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                         a->ai_protocol));
    if (!s.valid()) {
      last = std::strerror(errno);
      continue;
    }
    int err = 0;
    if (::connect(s.get(), a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{s.get(), POLLOUT, 0};
        socklen_t len = sizeof err;
        const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
        if (ready != 1) err = ready == 0 ? ETIMEDOUT : errno;
        else if (::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
    }
    if (err != 0) {
      last = std::strerror(err);
      continue;
    }
    const int flags = ::fcntl(s.get(), F_GETFL);
    (void)::fcntl(s.get(), F_SETFL, flags & ~O_NONBLOCK);
    no_delay(s.get());
    return s;
  }
  return errors::unavailable("cannot connect to ", address_text(host, port), ": ", last);
}

socket_fd accept_from(const socket_fd& listener) {
  for (;;) {
    socket_fd s(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (s.valid()) {
      no_delay(s.get());
      return s;
    }
    // A connection that went before it was accepted is not the listener's end.
    if (errno != EINTR && errno != ECONNABORTED) return {};
  }
}

status write_all(const socket_fd& s, std::span<iovec> parts) {
  size_t first = 0;
  while (first < parts.size()) {
    msghdr m{};
    m.msg_iov = parts.data() + first;
    m.msg_iovlen = parts.size() - first;
    const ssize_t n = ::sendmsg(s.get(), &m, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errors::unavailable(std::strerror(errno));
    }
    // Skips what went out: whole parts, then the front of a partly written one.
    auto left = static_cast<size_t>(n);
    while (first < parts.size() && left >= parts[first].iov_len) left -= parts[first++].iov_len;
    if (left > 0) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
  return {};
}

bool read_exact(const socket_fd& s, void* into, size_t bytes) {
  auto* at = static_cast<char*>(into);
  while (bytes > 0) {
    const ssize_t n = ::recv(s.get(), at, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    bytes -= static_cast<size_t>(n);
  }
  return true;
}

std::string peer_address(const socket_fd& s) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(s.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return "?";
  char text[INET6_ADDRSTRLEN] = {};
  const void* where = a.ss_family == AF_INET6
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(a).sin6_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(a).sin_addr);
  if (::inet_ntop(a.ss_family, where, text, sizeof text) == nullptr) return "?";
  return text;
}

}  // namespace caflow
