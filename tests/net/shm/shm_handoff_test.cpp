// The same-host handoff end to end (net/shm/shm_handoff.hpp, net/shm/shm_handshake.hpp) with a forked
// child as the other task: a segment handed over is the same memory in both processes, both
// ways, and every refusal (wrong secret, a peer of another uid, a handshake cut short, a peer
// that closes or stalls, no listener) is an error that says so, within a bounded wait.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "net/shm/shm_handoff.hpp"
#include "net/shm/shm_handshake.hpp"
#include "test_util/forked_child.hpp"

using namespace caflow;
using caflow::testing::forked_child;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view secret = "the cluster's secret";
constexpr size_t segment_bytes = 1 << 20;

// A plain Unix socket connected to `path`, as a peer that does not follow the protocol has.
socket_fd raw_connect(const std::string& path) {
  socket_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return {};
  return s;
}

// A Unix socket bound to `path`, not listening.
socket_fd bound_at(const std::string& path) {
  socket_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  REQUIRE(::bind(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  return s;
}

// A plain listening Unix socket at `path`, as a listener that does not follow the protocol.
socket_fd raw_listen(const std::string& path) {
  socket_fd s = bound_at(path);
  REQUIRE(::listen(s.get(), 4) == 0);
  return s;
}

bool readable_within(const socket_fd& s, int ms) {
  pollfd p{s.get(), POLLIN, 0};
  return ::poll(&p, 1, ms) == 1;
}

}  // namespace

TEST_CASE("a segment handed to another process is the same memory, both ways") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  auto seg = shm_segment::create("caflow-test", segment_bytes);
  REQUIRE(seg.ok());
  auto* words = static_cast<uint32_t*>(seg->data());
  for (size_t i = 0; i < segment_bytes / 8; ++i) words[i] = static_cast<uint32_t>(i * 7 + 1);

  const std::string path = listener->path();
  forked_child child([&] {
    auto ch = shm_connect(path, secret);
    if (!ch.ok()) return 10;
    auto got = ch->receive();
    if (!got.ok() || got->size() != segment_bytes) return 11;
    auto* w = static_cast<uint32_t*>(got->data());
    for (size_t i = 0; i < segment_bytes / 8; ++i)
      if (w[i] != static_cast<uint32_t>(i * 7 + 1)) return 12;
    // The second half: written here, read by the parent through its own mapping.
    for (size_t i = segment_bytes / 8; i < segment_bytes / 4; ++i)
      w[i] = static_cast<uint32_t>(i ^ 0x5a5a5a5a);
    // And a segment of the child's own, handed back.
    auto mine = shm_segment::create("child", 4096);
    if (!mine.ok()) return 13;
    std::memcpy(mine->data(), "from the child", 15);
    if (!ch->send(*mine).ok()) return 14;
    return 0;
  });

  auto ch = listener->accept(secret);
  REQUIRE(ch.ok());
  REQUIRE(ch->send(*seg).ok());
  auto back = ch->receive();
  REQUIRE(back.ok());
  CHECK(child.wait_exit() == 0);
  CHECK(back->size() == 4096);
  CHECK(std::string(static_cast<const char*>(back->data())) == "from the child");
  bool same = true;
  for (size_t i = segment_bytes / 8; i < segment_bytes / 4; ++i)
    same = same && words[i] == static_cast<uint32_t>(i ^ 0x5a5a5a5a);
  CHECK(same);
  CHECK(words[0] == 1);  // the first half as the parent wrote it
}

TEST_CASE("a wrong secret is refused on both sides") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  const std::string path = listener->path();
  forked_child child([&] {
    auto ch = shm_connect(path, "another cluster's secret");
    if (ch.ok()) return 10;
    if (ch.get_status().code() != error_code::permission_denied) return 11;
    if (ch.get_status().message() !=
        "shm handshake: the listener refused our proof of the cluster secret (another "
        "cluster, or a wrong secret)")
      return 12;
    return 0;
  });
  auto ch = listener->accept(secret);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::permission_denied);
  CHECK(ch.get_status().message() ==
        "shm handshake: the connecting peer's proof of the cluster secret does not match "
        "(another cluster, or a wrong secret)");
  CHECK(child.wait_exit() == 0);
}

TEST_CASE("a listener that does not know the secret is refused by the connector") {
  // A peer that plays listener with a guessed proof: the connector must not trust it.
  auto listener = shm_listener::open();  // only for a fresh 0700 directory to bind in
  REQUIRE(listener.ok());
  const std::string path = listener->path() + "-fake";
  socket_fd fake = raw_listen(path);
  forked_child child([&] {
    socket_fd peer(::accept(fake.get(), nullptr, nullptr));
    std::array<char, 4 + shm_nonce_bytes> hello{};
    std::memcpy(hello.data(), &shm_hello_magic, 4);
    if (::write(peer.get(), hello.data(), hello.size()) != static_cast<ssize_t>(hello.size()))
      return 10;
    std::array<char, shm_nonce_bytes + shm_proof_bytes> answer{};
    if (::read(peer.get(), answer.data(), answer.size()) <= 0) return 11;
    std::array<char, 1 + shm_proof_bytes> verdict{};
    verdict[0] = shm_verdict_accepted;  // but a proof of zeros
    if (::write(peer.get(), verdict.data(), verdict.size()) != 33) return 12;
    return 0;
  });
  auto ch = shm_connect(path, secret, 5s);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::permission_denied);
  CHECK(ch.get_status().message() ==
        "shm handshake: the listener's proof of the cluster secret does not match (another "
        "cluster, or a wrong secret)");
  CHECK(child.wait_exit() == 0);
  ::unlink(path.c_str());
}

TEST_CASE("a handshake cut short by the connector is an error naming what was cut") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  const std::string path = listener->path();
  forked_child child([&] {
    socket_fd s = raw_connect(path);
    if (!s.valid()) return 10;
    char hello[4 + shm_nonce_bytes];
    if (!readable_within(s, 5000) || ::read(s.get(), hello, sizeof hello) != sizeof hello)
      return 11;
    const char part[10] = {};
    if (::write(s.get(), part, sizeof part) != sizeof part) return 12;
    return 0;  // exiting closes the socket
  });
  auto ch = listener->accept(secret);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::unavailable);
  CHECK(ch.get_status().message() ==
        "peer closed the connection during the connector's shm proof after 10 of 64 bytes");
  CHECK(child.wait_exit() == 0);
}

TEST_CASE("a connector that closes after the hello is an error, and the listener goes on") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  const std::string path = listener->path();
  forked_child quitter([&] {
    socket_fd s = raw_connect(path);
    return s.valid() && readable_within(s, 5000) ? 0 : 10;
  });
  auto ch = listener->accept(secret);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::unavailable);
  CHECK(ch.get_status().message() ==
        "peer closed the connection during the connector's shm proof after 0 of 64 bytes");
  CHECK(quitter.wait_exit() == 0);

  forked_child good([&] { return shm_connect(path, secret).ok() ? 0 : 10; });
  auto next = listener->accept(secret);
  CHECK(next.ok());
  CHECK(good.wait_exit() == 0);
}

TEST_CASE("a listener that closes at once is an error for the connector") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  const std::string path = listener->path() + "-closing";
  socket_fd fake = raw_listen(path);
  forked_child child([&] {
    socket_fd peer(::accept(fake.get(), nullptr, nullptr));
    return peer.valid() ? 0 : 10;
  });
  auto ch = shm_connect(path, secret);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::unavailable);
  CHECK(ch.get_status().message() ==
        "peer closed the connection during the shm hello after 0 of 36 bytes");
  CHECK(child.wait_exit() == 0);
  ::unlink(path.c_str());
}

TEST_CASE("a peer that stalls is given up at the deadline, on either side") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  SUBCASE("no connection at all") {
    const auto start = std::chrono::steady_clock::now();
    auto ch = listener->accept(secret, 200ms);
    REQUIRE(!ch.ok());
    CHECK(ch.get_status().code() == error_code::deadline_exceeded);
    CHECK(ch.get_status().message() == "timed out waiting for a connection to the shm listener");
    CHECK(std::chrono::steady_clock::now() - start < 2s);
  }
  SUBCASE("a connector that never proves anything") {
    socket_fd silent = raw_connect(listener->path());
    REQUIRE(silent.valid());
    const auto start = std::chrono::steady_clock::now();
    auto ch = listener->accept(secret, 200ms);
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE(!ch.ok());
    CHECK(ch.get_status().code() == error_code::deadline_exceeded);
    CHECK(ch.get_status().message() == "timed out waiting for the connector's shm proof");
    CHECK(waited >= 190ms);
    CHECK(waited < 2s);
  }
  SUBCASE("a listener that never accepts") {
    const std::string path = listener->path() + "-deaf";
    socket_fd deaf = raw_listen(path);
    const auto start = std::chrono::steady_clock::now();
    auto ch = shm_connect(path, secret, 200ms);
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE(!ch.ok());
    CHECK(ch.get_status().code() == error_code::deadline_exceeded);
    CHECK(ch.get_status().message() == "timed out waiting for the shm hello");
    CHECK(waited < 2s);
    ::unlink(path.c_str());
  }
}

TEST_CASE("a peer of another uid is refused, naming both uids") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  socket_fd a(fds[0]), b(fds[1]);
  CHECK(check_peer_uid(a, ::geteuid()).ok());
  const status st = check_peer_uid(a, ::geteuid() + 1);
  CHECK(st.code() == error_code::permission_denied);
  CHECK(st.message() == "peer process " + std::to_string(::getpid()) + " runs as uid " +
                            std::to_string(::geteuid()) + ", but only uid " +
                            std::to_string(::geteuid() + 1) +
                            " (this cluster's) may share memory with it");
}

TEST_CASE("an empty secret is refused before anything is sent") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  auto ch = shm_connect(listener->path(), "");
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::invalid_argument);
  CHECK(ch.get_status().message().find("the cluster secret is empty") != std::string::npos);
}

TEST_CASE("no listener at the path is an error naming it") {
  auto ch = shm_connect("/nonexistent-caflow-dir/s", secret, 200ms);
  REQUIRE(!ch.ok());
  CHECK(ch.get_status().code() == error_code::unavailable);
  CHECK(ch.get_status().message() ==
        "no shm listener at '/nonexistent-caflow-dir/s': connect failed: No such file or "
        "directory");
}

TEST_CASE("the listener's directory is private, and gone with the listener") {
  std::string dir;
  {
    auto listener = shm_listener::open();
    REQUIRE(listener.ok());
    const std::string path = listener->path();
    dir = path.substr(0, path.rfind('/'));
    struct stat st {};
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(S_ISSOCK(st.st_mode));
  }
  struct stat st {};
  CHECK(::stat(dir.c_str(), &st) != 0);
}

namespace {

// Sets a file's times (a socket's too) to two minutes ago.
void two_minutes_old(const std::string& path) {
  const timespec then[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), then, AT_SYMLINK_NOFOLLOW) == 0);
}

// A socket directory as a listener killed by a signal leaves it: the socket file, nobody on it.
std::string left_behind(const std::string& base, bool old = true) {
  std::string dir = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  bound_at(dir + "/s");  // closed at once; its file stays
  if (old) two_minutes_old(dir + "/s");
  return dir;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("directories of listeners that are gone are swept; live and foreign ones stay") {
  std::string base = "/tmp/caflow-sweep-test-XXXXXX";
  REQUIRE(::mkdtemp(base.data()) != nullptr);
  const std::string dead1 = left_behind(base), dead2 = left_behind(base);
  // A listener between mkdtemp and bind: a directory without a socket.
  std::string starting = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(starting.data()) != nullptr);
  // One killed there two minutes ago.
  std::string empty_old = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(empty_old.data()) != nullptr);
  two_minutes_old(empty_old);
  // A socket bound a moment ago that refuses connections: a listener between bind and listen
  // that bound after the sweep read /proc/net/unix looks like this, and is left alone.
  const std::string young = left_behind(base, false);
  // A name that is not a listener's, with a dead socket in it.
  const std::string other = left_behind(base);
  const std::string renamed = base + "/someone-else";
  REQUIRE(::rename(other.c_str(), renamed.c_str()) == 0);
  // A live listener, and one that is bound but not listening yet (between bind and listen).
  std::string live = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(live.data()) != nullptr);
  const socket_fd listening = raw_listen(live + "/s");
  std::string binding = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(binding.data()) != nullptr);
  const socket_fd bound = bound_at(binding + "/s");
  // Old enough to be swept if they were dead: what keeps them is that they are bound here.
  two_minutes_old(live + "/s");
  two_minutes_old(binding + "/s");

  CHECK(sweep_stale_shm_listeners(base) == 3);
  CHECK_FALSE(exists(empty_old));
  CHECK(exists(young + "/s"));
  CHECK_FALSE(exists(dead1));
  CHECK_FALSE(exists(dead2));
  CHECK(exists(starting));
  CHECK(exists(renamed + "/s"));
  CHECK(exists(live + "/s"));
  CHECK(exists(binding + "/s"));
  // The live listener still takes connections, and was not connected to by the sweep.
  CHECK_FALSE(readable_within(listening, 0));
  CHECK(raw_connect(live + "/s").valid());
  CHECK(sweep_stale_shm_listeners(base) == 0);
  CHECK(sweep_stale_shm_listeners(base + "/no-such-directory") == 0);

  for (const std::string& d : {starting, live, binding, renamed, young}) {
    ::unlink((d + "/s").c_str());
    ::rmdir(d.c_str());
  }
  CHECK(::rmdir(base.c_str()) == 0);
}

TEST_CASE("only a listener's own layout, of this uid and private, is a plausible listener") {
  auto listener = shm_listener::open();
  REQUIRE(listener.ok());
  CHECK(plausible_shm_listener(listener->path()));
  std::string base = "/tmp/caflow-plausible-test-XXXXXX";
  REQUIRE(::mkdtemp(base.data()) != nullptr);
  // The right names, but the directory others may enter.
  const std::string open_dir = left_behind(base);
  REQUIRE(::chmod(open_dir.c_str(), 0755) == 0);
  CHECK_FALSE(plausible_shm_listener(open_dir + "/s"));
  REQUIRE(::chmod(open_dir.c_str(), 0700) == 0);
  CHECK(plausible_shm_listener(open_dir + "/s"));
  // A socket under another name, a file where the socket should be, a path that is not there.
  const std::string other = base + "/elsewhere";
  REQUIRE(::mkdir(other.c_str(), 0700) == 0);
  const socket_fd elsewhere = bound_at(other + "/s");
  CHECK_FALSE(plausible_shm_listener(other + "/s"));
  std::string with_file = base + "/caflow-shm-XXXXXX";
  REQUIRE(::mkdtemp(with_file.data()) != nullptr);
  { std::ofstream(with_file + "/s") << "not a socket"; }
  CHECK_FALSE(plausible_shm_listener(with_file + "/s"));
  CHECK_FALSE(plausible_shm_listener(open_dir + "/t"));
  CHECK_FALSE(plausible_shm_listener("/etc/passwd"));
  CHECK_FALSE(plausible_shm_listener(""));
  std::filesystem::remove_all(base);
}
