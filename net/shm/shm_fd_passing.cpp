#include "net/shm/shm_fd_passing.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace caflow {
namespace {

// Room for a few descriptors, so a peer that attaches more than one is detected (and the
// extras closed) rather than truncated silently.
constexpr size_t max_descriptors_seen = 4;

// Closes every descriptor in `fds` (a message that is refused leaves none open).
void close_all(const std::vector<int>& fds) {
  for (int fd : fds) ::close(fd);
}

}  // namespace

status send_segment(const socket_fd& s, const shm_segment& segment, io_deadline until) {
  std::array<char, shm_segment_header_bytes> header{};
  const uint64_t size = segment.size();
  std::memcpy(header.data(), &shm_segment_magic, 4);
  std::memcpy(header.data() + 8, &size, 8);

  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  iovec iov{header.data(), header.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int fd = segment.fd();
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);

  ssize_t n = -1;
  for (;;) {
    CAFLOW_RETURN_IF_ERROR(wait_writable_until(s, until, "a shm segment's header"));
    n = ::sendmsg(s.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) break;
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return errors::unavailable("sendmsg (a shm segment's descriptor) failed: ",
                                 std::strerror(errno));
  }
  // The descriptor went with the first byte; the rest of the header follows plainly.
  const auto sent = static_cast<size_t>(n);
  return write_all_until(s, header.data() + sent, header.size() - sent, until,
                         "a shm segment's header");
}

status_or<shm_segment> receive_segment(const socket_fd& s, io_deadline until) {
  std::array<char, shm_segment_header_bytes> header{};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * max_descriptors_seen)> control{};
  iovec iov{header.data(), header.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();

  ssize_t n = -1;
  for (;;) {
    CAFLOW_RETURN_IF_ERROR(wait_readable_until(s, until, "a shm segment's header"));
    n = ::recvmsg(s.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n >= 0) break;
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return errors::unavailable("recvmsg (a shm segment's descriptor) failed: ",
                                 std::strerror(errno));
  }
  std::vector<int> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds.push_back(fd);
    }
  }
  if (n == 0) {
    close_all(fds);
    return errors::unavailable("peer closed the connection during a shm segment's header after "
                               "0 of ", shm_segment_header_bytes, " bytes");
  }
  if (msg.msg_flags & MSG_CTRUNC) {
    close_all(fds);
    return errors::data_loss("a shm segment's header came with more than ", max_descriptors_seen,
                             " descriptors: refused");
  }
  if (fds.size() != 1) {
    close_all(fds);
    return errors::data_loss("a shm segment's header came with ", fds.size(),
                             " descriptors instead of exactly one: refused");
  }
  const auto got = static_cast<size_t>(n);
  status rest = read_exact_until(s, header.data() + got, header.size() - got, until,
                                 "the rest of a shm segment's header");
  if (!rest.ok()) {
    close_all(fds);
    return rest;
  }
  uint32_t magic = 0;
  uint64_t size = 0;
  std::memcpy(&magic, header.data(), 4);
  std::memcpy(&size, header.data() + 8, 8);
  if (magic != shm_segment_magic) {
    close_all(fds);
    return errors::data_loss("a shm segment's header starts with ", magic, ", not ",
                             shm_segment_magic, ": refused");
  }
  return shm_segment::adopt(fds.front(), size);
}

}  // namespace caflow
