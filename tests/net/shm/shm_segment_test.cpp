// Shared memory segments (net/shm/shm_segment.hpp): made sealed against size changes, and a
// descriptor from elsewhere is mapped only when it is such a segment of the announced size.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "net/shm/shm_segment.hpp"

using namespace caflow;

TEST_CASE("a segment is zero-filled, writable, and sealed against any change of size") {
  auto seg = shm_segment::create("caflow-test", 1 << 20);
  REQUIRE(seg.ok());
  CHECK(seg->size() == (1u << 20));
  REQUIRE(seg->data() != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(seg->data()) % 4096 == 0);
  const auto* bytes = static_cast<const unsigned char*>(seg->data());
  CHECK(bytes[0] == 0);
  CHECK(bytes[(1 << 20) - 1] == 0);
  static_cast<unsigned char*>(seg->data())[12345] = 0xAB;
  CHECK(bytes[12345] == 0xAB);

  const int seals = ::fcntl(seg->fd(), F_GET_SEALS);
  CHECK((seals & F_SEAL_SHRINK) != 0);
  CHECK((seals & F_SEAL_GROW) != 0);
  CHECK((seals & F_SEAL_SEAL) != 0);
  CHECK((seals & F_SEAL_WRITE) == 0);
  errno = 0;
  CHECK(::ftruncate(seg->fd(), 4096) != 0);
  CHECK(errno == EPERM);
}

TEST_CASE("a segment of size 0 is refused by name") {
  auto seg = shm_segment::create("empty-one", 0);
  REQUIRE(!seg.ok());
  CHECK(seg.get_status().code() == error_code::invalid_argument);
  CHECK(seg.get_status().message() == "shm segment 'empty-one': size 0");
}

TEST_CASE("adopting a duplicate of a segment's descriptor maps the same pages") {
  auto seg = shm_segment::create("caflow-test", 8192);
  REQUIRE(seg.ok());
  auto other = shm_segment::adopt(::dup(seg->fd()), 8192);
  REQUIRE(other.ok());
  CHECK(other->data() != seg->data());
  static_cast<char*>(seg->data())[100] = 'x';
  CHECK(static_cast<char*>(other->data())[100] == 'x');
  static_cast<char*>(other->data())[8191] = 'y';
  CHECK(static_cast<char*>(seg->data())[8191] == 'y');
}

TEST_CASE("a segment moves, and the moved-from one owns nothing") {
  auto seg = shm_segment::create("caflow-test", 4096);
  REQUIRE(seg.ok());
  void* data = seg->data();
  shm_segment moved = std::move(seg).value();
  CHECK(moved.data() == data);
  CHECK(moved.size() == 4096);
  auto next = shm_segment::create("caflow-test", 8192);
  REQUIRE(next.ok());
  moved = std::move(next).value();  // releases the first mapping
  CHECK(moved.size() == 8192);
}

TEST_CASE("a descriptor that could still shrink is refused") {
  const int fd = ::memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, 4096) == 0);
  auto seg = shm_segment::adopt(fd, 4096);
  REQUIRE(!seg.ok());
  CHECK(seg.get_status().code() == error_code::permission_denied);
  CHECK(seg.get_status().message().find("is not sealed against shrinking and growing") !=
        std::string::npos);
  // adopt closed it.
  errno = 0;
  CHECK(::fcntl(fd, F_GETFD) == -1);
  CHECK(errno == EBADF);
}

TEST_CASE("a descriptor that is no memfd is refused") {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  ::close(p[1]);
  auto seg = shm_segment::adopt(p[0], 4096);
  REQUIRE(!seg.ok());
  CHECK(seg.get_status().code() == error_code::permission_denied);
  CHECK(seg.get_status().message().find("fcntl(F_GET_SEALS)") == 0);
  CHECK(seg.get_status().message().find("not a sealed memfd, refused") != std::string::npos);
}

TEST_CASE("a segment of another size than announced is refused") {
  auto seg = shm_segment::create("caflow-test", 4096);
  REQUIRE(seg.ok());
  const int fd = ::dup(seg->fd());
  auto other = shm_segment::adopt(fd, 8192);
  REQUIRE(!other.ok());
  CHECK(other.get_status().code() == error_code::invalid_argument);
  CHECK(other.get_status().message() == "received descriptor " + std::to_string(fd) +
                                            " has 4096 bytes, but 8192 were announced");
}
