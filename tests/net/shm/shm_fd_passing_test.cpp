// Handing a segment's descriptor over a Unix socket (net/shm/shm_fd_passing.hpp), on a socketpair:
// the receiver maps the sender's pages, and a message without exactly one descriptor, with a
// foreign header, cut short or never sent is an error that says so, within the deadline.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "net/shm/shm_fd_passing.hpp"

using namespace caflow;
using namespace std::chrono_literals;

namespace {

struct socket_pair {
  socket_fd a, b;
  socket_pair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    a = socket_fd(fds[0]);
    b = socket_fd(fds[1]);
  }
};

io_deadline in(std::chrono::milliseconds d) { return std::chrono::steady_clock::now() + d; }

// Writes `bytes` with `fds` attached, as a misbehaving peer would.
void send_raw(const socket_fd& s, const std::vector<char>& bytes, const std::vector<int>& fds) {
  std::vector<char> control(CMSG_SPACE(sizeof(int) * (fds.empty() ? 1 : fds.size())));
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  REQUIRE(::sendmsg(s.get(), &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
}

std::vector<char> header(uint32_t magic, uint64_t size) {
  std::vector<char> h(shm_segment_header_bytes, 0);
  std::memcpy(h.data(), &magic, 4);
  std::memcpy(h.data() + 8, &size, 8);
  return h;
}

// How many descriptors this process has open (to see that refused ones were closed).
int open_descriptors() {
  int n = 0;
  for (int fd = 0; fd < 1024; ++fd)
    if (::fcntl(fd, F_GETFD) != -1) ++n;
  return n;
}

}  // namespace

TEST_CASE("a received segment maps the sender's pages") {
  socket_pair p;
  auto seg = shm_segment::create("caflow-test", 3 * 4096);
  REQUIRE(seg.ok());
  std::memcpy(seg->data(), "hello", 5);
  REQUIRE(send_segment(p.a, *seg, in(1s)).ok());
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(got.ok());
  CHECK(got->size() == 3 * 4096);
  CHECK(got->fd() != seg->fd());
  CHECK(std::memcmp(got->data(), "hello", 5) == 0);
  static_cast<char*>(got->data())[3 * 4096 - 1] = 'z';
  CHECK(static_cast<char*>(seg->data())[3 * 4096 - 1] == 'z');
}

TEST_CASE("a header without a descriptor is refused") {
  socket_pair p;
  send_raw(p.a, header(shm_segment_magic, 4096), {});
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::data_loss);
  CHECK(got.get_status().message() ==
        "a shm segment's header came with 0 descriptors instead of exactly one: refused");
}

TEST_CASE("a header with two descriptors is refused and both are closed") {
  socket_pair p;
  auto one = shm_segment::create("one", 4096);
  auto two = shm_segment::create("two", 4096);
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  const int before = open_descriptors();
  send_raw(p.a, header(shm_segment_magic, 4096), {one->fd(), two->fd()});
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().message() ==
        "a shm segment's header came with 2 descriptors instead of exactly one: refused");
  CHECK(open_descriptors() == before);
}

TEST_CASE("a foreign header is refused and its descriptor closed") {
  socket_pair p;
  auto seg = shm_segment::create("caflow-test", 4096);
  REQUIRE(seg.ok());
  const int before = open_descriptors();
  send_raw(p.a, header(0x12345678, 4096), {seg->fd()});
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::data_loss);
  CHECK(got.get_status().message() == "a shm segment's header starts with 305419896, not " +
                                          std::to_string(shm_segment_magic) + ": refused");
  CHECK(open_descriptors() == before);
}

TEST_CASE("a size other than the segment's is refused") {
  socket_pair p;
  auto seg = shm_segment::create("caflow-test", 4096);
  REQUIRE(seg.ok());
  send_raw(p.a, header(shm_segment_magic, 1 << 30), {seg->fd()});
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::invalid_argument);
  CHECK(got.get_status().message().find("has 4096 bytes, but 1073741824 were announced") !=
        std::string::npos);
}

TEST_CASE("a header cut short by a closing peer is an error, its descriptor closed") {
  socket_pair p;
  auto seg = shm_segment::create("caflow-test", 4096);
  REQUIRE(seg.ok());
  const int before = open_descriptors();
  send_raw(p.a, std::vector<char>(5, 0), {seg->fd()});
  p.a = socket_fd();
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::unavailable);
  CHECK(got.get_status().message() ==
        "peer closed the connection during the rest of a shm segment's header after 0 of 11 "
        "bytes");
  CHECK(open_descriptors() == before - 1);  // p.a's, closed above
}

TEST_CASE("a peer that closes before sending anything is an error") {
  socket_pair p;
  p.a = socket_fd();
  auto got = receive_segment(p.b, in(1s));
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::unavailable);
  CHECK(got.get_status().message() ==
        "peer closed the connection during a shm segment's header after 0 of 16 bytes");
}

TEST_CASE("a peer that sends nothing makes the receiver give up at its deadline") {
  socket_pair p;
  const auto start = std::chrono::steady_clock::now();
  auto got = receive_segment(p.b, in(200ms));
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(!got.ok());
  CHECK(got.get_status().code() == error_code::deadline_exceeded);
  CHECK(got.get_status().message() == "timed out waiting for a shm segment's header");
  CHECK(waited >= 190ms);
  CHECK(waited < 2s);
}
