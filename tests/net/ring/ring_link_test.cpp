// A connection's same-host rings (net/ring/ring_link.hpp), two links over a socket pair in one
// process, each with its own ring listener (net/ring/ring_listener.hpp) as two tasks would have:
// after the hellos each side writes a ring when the other takes rings on the same host, TCP
// otherwise; bytes come whole and in order through a ring much smaller than them; a reader
// that stopped polling is rung; the writer's end comes after its last records; and a peer
// that breaks the protocol ends the connection, saying how.
#include "net/ring/ring_link.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>

using namespace caflow;

namespace {

constexpr const char* secret = "ring-link-test-secret";

std::shared_ptr<const ring_settings> settings(bool listens, bool writes,
                                              const std::string& boot = "boot-1") {
  auto s = std::make_shared<ring_settings>();
  s->secret = secret;
  s->boot_id = boot;
  s->writes_rings = writes;
  s->ring_bytes = 64 * 1024;  // small: big writes must wait for room
  if (listens) {
    auto l = ring_listener::start(secret);
    REQUIRE_MESSAGE(l.ok(), l.get_status().to_string());
    s->listener = *l;
  }
  return s;
}

struct socket_pair {
  socket_pair() {
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd) == 0);
  }
  ~socket_pair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  int fd[2];
};

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

// Reads what `link` hands out now; `closed` says whether it ended.
std::string read_now(ring_link& link, bool* closed = nullptr) {
  std::string out;
  char buf[1000];  // smaller than a record: records are handed out in pieces
  for (;;) {
    size_t got = 0;
    const auto s = link.read(buf, sizeof buf, got);
    if (closed) *closed = s == ring_link::read_state::closed;
    if (s != ring_link::read_state::bytes) return out;
    out.append(buf, got);
  }
}

// Two links that have read each other's hello and choice.
struct linked {
  linked(std::shared_ptr<const ring_settings> sa, std::shared_ptr<const ring_settings> sb)
      : a(pair.fd[0], std::move(sa)), b(pair.fd[1], std::move(sb)) {
    REQUIRE(a.send_hello());
    REQUIRE(b.send_hello());
    CHECK(read_now(a).empty());  // b's hello: a chooses
    CHECK(read_now(b).empty());  // a's hello and choice: b chooses and attaches
    CHECK(read_now(a).empty());  // b's choice
    REQUIRE(a.decided());
    REQUIRE(b.decided());
  }
  socket_pair pair;
  ring_link a, b;
};

// A hello as a peer sends it, around `payload`.
std::string hello(const std::string& payload) {
  std::string h(12, '\0');
  const uint32_t n = static_cast<uint32_t>(payload.size());
  std::memcpy(h.data(), &ring_hello_magic, 8);
  std::memcpy(h.data() + 8, &n, 4);
  return h + payload;
}

std::string pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 31 + seed) % 251);
  return s;
}

// Writes `bytes` through `from`'s ring and reads them at `to`, pushing what waited whenever
// the reader has made room.
std::string through_ring(ring_link& from, ring_link& to, const std::string& bytes) {
  std::vector<char> w(bytes.begin(), bytes.end());
  from.write(w);
  CHECK(w.empty());
  std::string got;
  for (int turns = 0; got.size() < bytes.size() && turns < 100000; ++turns) {
    got += read_now(to);
    from.push_waiting();
  }
  CHECK_FALSE(from.has_waiting());
  return got;
}

}  // namespace

TEST_CASE("two tasks on one host write rings both ways; bytes come whole and in order") {
  const auto before = ring_stats().rings_written.load();
  linked l(settings(true, true), settings(true, true));
  CHECK(l.a.writes_ring());
  CHECK(l.b.writes_ring());
  CHECK(l.a.reads_ring());
  CHECK(l.b.reads_ring());
  CHECK(ring_stats().rings_written.load() == before + 2);
  // Many times the ring's 64 KiB: the writer keeps what does not fit and pushes it later.
  const std::string big = pattern(1 << 20, 1), small = pattern(40, 2);
  CHECK(through_ring(l.a, l.b, big) == big);
  CHECK(through_ring(l.b, l.a, small) == small);
  // Several writes queue behind each other while the reader is away.
  std::string all;
  for (int i = 0; i < 5; ++i) {
    const std::string part = pattern(30000 + static_cast<size_t>(i), i);
    std::vector<char> w(part.begin(), part.end());
    l.a.write(w);
    all += part;
  }
  CHECK(l.a.has_waiting());
  std::string got;
  for (int turns = 0; got.size() < all.size() && turns < 100000; ++turns) {
    got += read_now(l.b);
    l.a.push_waiting();
  }
  CHECK(got == all);
  // No byte of it went by TCP: only doorbells did, and reading drained them.
  CHECK_FALSE(readable(l.pair.fd[1]));
}

TEST_CASE("a peer that takes no rings, or runs on another host, gets TCP") {
  SUBCASE("no listener on one side: that side is written over TCP, the other through a ring") {
    linked l(settings(false, true), settings(true, true));
    CHECK(l.a.writes_ring());       // b takes rings
    CHECK_FALSE(l.b.writes_ring());  // a does not
    CHECK(l.b.reads_ring());
    CHECK_FALSE(l.a.reads_ring());
    CHECK(through_ring(l.a, l.b, "to b") == "to b");
    // b's bytes go on TCP, as the stream would write them.
    REQUIRE(::send(l.pair.fd[1], "to a", 4, 0) == 4);
    CHECK(read_now(l.a) == "to a");
  }
  SUBCASE("another boot id") {
    linked l(settings(true, true, "boot-1"), settings(true, true, "boot-2"));
    CHECK_FALSE(l.a.writes_ring());
    CHECK_FALSE(l.b.writes_ring());
    REQUIRE(::send(l.pair.fd[0], "plain", 5, 0) == 5);
    CHECK(read_now(l.b) == "plain");
  }
  SUBCASE("a process without a poller does not write rings") {
    linked l(settings(true, false), settings(true, false));
    CHECK_FALSE(l.a.writes_ring());
    CHECK_FALSE(l.b.writes_ring());
  }
}

TEST_CASE("a reader that stopped polling is rung; one that polls is not") {
  linked l(settings(true, true), settings(true, true));
  CHECK(through_ring(l.a, l.b, "first") == "first");  // drains the first doorbell
  l.b.set_awake(false);
  std::vector<char> w{'x'};
  l.a.write(w);
  CHECK(l.b.ring_ready());
  CHECK(readable(l.pair.fd[1]));  // the doorbell
  CHECK(read_now(l.b) == "x");
  CHECK_FALSE(readable(l.pair.fd[1]));
  l.b.set_awake(true);
  w = {'y'};
  l.a.write(w);
  CHECK(l.b.ring_ready());
  CHECK_FALSE(readable(l.pair.fd[1]));
  CHECK(read_now(l.b) == "y");
}

TEST_CASE("a read for the poller leaves the socket alone; the socket's own read drains it") {
  linked l(settings(true, true), settings(true, true));
  CHECK(through_ring(l.a, l.b, "first") == "first");  // drains the first doorbell
  l.b.set_awake(false);
  std::vector<char> w{'x'};
  l.a.write(w);  // rung: the reader was asleep
  REQUIRE(readable(l.pair.fd[1]));
  l.b.reading_for_poller(true);
  CHECK(read_now(l.b) == "x");
  CHECK(readable(l.pair.fd[1]));  // the doorbell stays for the socket's read
  l.b.reading_for_poller(false);
  CHECK(read_now(l.b).empty());
  CHECK_FALSE(readable(l.pair.fd[1]));
  // The peer's end, too, is seen by the socket's read and not by the poller's.
  ::close(l.pair.fd[0]);
  l.pair.fd[0] = -1;
  bool closed = false;
  l.b.reading_for_poller(true);
  CHECK(read_now(l.b, &closed).empty());
  CHECK_FALSE(closed);
  l.b.reading_for_poller(false);
  CHECK(read_now(l.b, &closed).empty());
  CHECK(closed);
}

TEST_CASE("the writer's end comes after its last records") {
  linked l(settings(true, true), settings(true, true));
  const std::string last = pattern(5000, 7);
  std::vector<char> w(last.begin(), last.end());
  l.a.write(w);
  ::close(l.pair.fd[0]);
  l.pair.fd[0] = -1;
  bool closed = false;
  CHECK(read_now(l.b, &closed) == last);
  CHECK(closed);
  CHECK(l.b.refusal().empty());  // an end, not a refusal
}

TEST_CASE("a peer that breaks the protocol ends the connection, saying how") {
  socket_pair p;
  const auto sb = settings(true, true);
  ring_link b(p.fd[1], sb);
  REQUIRE(b.send_hello());
  const auto refused = ring_stats().refused.load();
  bool closed = false;
  // accepts rings = 0, boot id "boot-1", no listener path.
  const std::string valid = hello(std::string{'\0', '\6', '\0'} + "boot-1" + std::string(2, '\0'));
  SUBCASE("not caflow's hello (a BASP header, say)") {
    const std::string basp(32, '\x7f');
    REQUIRE(::send(p.fd[0], basp.data(), basp.size(), 0) == 32);
    read_now(b, &closed);
    CHECK(b.refusal().find("did not start with caflow's hello") != std::string::npos);
  }
  SUBCASE("a hello that announces too much") {
    std::string h = hello("");
    const uint32_t n = 1 << 30;
    std::memcpy(h.data() + 8, &n, 4);
    REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == 12);
    read_now(b, &closed);
    CHECK(b.refusal().find("1073741824 bytes") != std::string::npos);
  }
  SUBCASE("fields that do not fill the hello") {
    // A boot id of 9 bytes that has 4.
    const std::string h = hello(std::string{'\0', '\11', '\0'} + "boot");
    REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == static_cast<ssize_t>(h.size()));
    read_now(b, &closed);
    CHECK(b.refusal().find("malformed") != std::string::npos);
  }
  SUBCASE("neither choice") {
    const std::string h = valid + "X";
    REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == static_cast<ssize_t>(h.size()));
    read_now(b, &closed);
    CHECK(b.refusal().find("neither TCP nor a ring") != std::string::npos);
  }
  SUBCASE("a ring nobody handed over") {
    std::string h = valid + "R" + std::string(8, '\x42');
    REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == static_cast<ssize_t>(h.size()));
    read_now(b, &closed);
    CHECK(b.refusal().find("never handed over") != std::string::npos);
  }
  SUBCASE("a ring whose records no writer leaves") {
    auto segment = shm_segment::create("test-ring", shm_ring::header_bytes + 64 * 1024);
    REQUIRE(segment.ok());
    REQUIRE(shm_ring::create(segment->data(), segment->size()).ok());
    // Handed over to b's listener as a peer's writer would, then named on TCP.
    auto token = hand_over_ring(sb->listener->path(), secret, *segment, ring_handoff_patience);
    REQUIRE_MESSAGE(token.ok(), token.get_status().to_string());
    const std::string h =
        valid + "R" + std::string(reinterpret_cast<const char*>(&*token), sizeof(uint64_t));
    REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == static_cast<ssize_t>(h.size()));
    CHECK(read_now(b).empty());
    REQUIRE(b.reads_ring());
    // The writer's position, a whole ring's length and more past the reader's.
    const uint64_t head = uint64_t{1} << 40;
    std::memcpy(static_cast<char*>(segment->data()) + 64, &head, sizeof head);
    read_now(b, &closed);
    CHECK(b.refusal().find("producer's position") != std::string::npos);
  }
  CHECK(closed);
  CHECK(ring_stats().refused.load() == refused + 1);
}

TEST_CASE("a peer that names anything but a listener of this user gets TCP, nothing connected") {
  socket_pair p;
  ring_link b(p.fd[1], settings(true, true));
  REQUIRE(b.send_hello());
  const auto failed = ring_stats().handoffs_failed.load();
  // accepts rings, the same boot id, and a path that is no caflow listener.
  const std::string path = "/etc/passwd";
  std::string payload{'\1', '\6', '\0'};
  payload += "boot-1";
  payload += std::string{static_cast<char>(path.size()), '\0'} + path;
  const std::string h = hello(payload);
  REQUIRE(::send(p.fd[0], h.data(), h.size(), 0) == static_cast<ssize_t>(h.size()));
  CHECK(read_now(b).empty());
  REQUIRE(b.decided());
  CHECK_FALSE(b.writes_ring());
  CHECK(ring_stats().handoffs_failed.load() == failed);  // never tried
  // What b sent: its own hello, then its choice, TCP.
  char got[4096];
  const ssize_t k = ::recv(p.fd[0], got, sizeof got, 0);
  REQUIRE(k > 12);
  uint32_t own = 0;
  std::memcpy(&own, got + 8, 4);
  REQUIRE(static_cast<size_t>(k) == 12 + own + 1);
  CHECK(got[k - 1] == 'T');
}
