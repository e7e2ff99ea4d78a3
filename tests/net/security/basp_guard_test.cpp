// Nothing is allocated or held for a peer before it has proved itself: BASP headers are checked
// before CAF's broker allocates what they announce, handshakes have a deadline, and connections
// in their handshake are bounded per address. The attack runs against a real caflow-server
// process, whose RSS and descriptors are read from /proc.
#include "net/security/basp_guard.hpp"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/platform/time_scale.hpp"
#include "test_util/process.hpp"
#include "test_util/test_certs.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::child_process;

namespace {

// A BASP header as CAF 0.17 writes it: operation, two padding bytes, flags, then the payload
// length, operation data and two actor ids, all in network byte order.
std::array<unsigned char, basp_header_bytes> header(unsigned char op, uint32_t payload_len) {
  std::array<unsigned char, basp_header_bytes> h{};
  h[0] = op;
  h[4] = payload_len >> 24;
  h[5] = payload_len >> 16;
  h[6] = payload_len >> 8;
  h[7] = payload_len;
  return h;
}

constexpr unsigned char server_handshake = 0x00, client_handshake = 0x01, direct_message = 0x02;

}  // namespace

TEST_CASE("basp_stream_check: a handshake first and small, then messages within the limit") {
  basp_stream_check c;
  CHECK_FALSE(c.handshake_done());
  auto hs = header(client_handshake, 200);
  REQUIRE(c.received(hs.data(), hs.size()).ok());
  CHECK_FALSE(c.handshake_done());
  std::vector<char> payload(200);
  REQUIRE(c.received(payload.data(), payload.size()).ok());  // the handshake's payload
  CHECK(c.handshake_done());
  auto msg = header(direct_message, 32u << 20);
  REQUIRE(c.received(msg.data(), msg.size()).ok());
  std::vector<char> big(16);  // whatever the payload holds, it is not a header
  REQUIRE(c.received(big.data(), big.size()).ok());
  auto heartbeat = header(0x05, 0);
  CHECK(c.received(heartbeat.data(), heartbeat.size()).ok());
  auto too_big = header(direct_message, max_basp_message_payload + 1);
  const status st = c.received(too_big.data(), too_big.size());
  CHECK(st.message().find("announces 1073741825 bytes (at most 1073741824)") != std::string::npos);
}

TEST_CASE("basp_stream_check refuses what comes before a handshake, or a big one") {
  {
    basp_stream_check c;
    auto forged = header(client_handshake, 0xFFFFFFF0u);
    const status st = c.received(forged.data(), forged.size());
    CHECK(st.message().find("handshake announces 4294967280 bytes (at most 65536)") !=
          std::string::npos);
  }
  {
    basp_stream_check c;
    auto early = header(direct_message, 10);
    const status st = c.received(early.data(), early.size());
    CHECK(st.message().find("message type 2 before its handshake") != std::string::npos);
  }
  {
    basp_stream_check c;  // a server's handshake, as the connecting side reads it
    auto hs = header(server_handshake, max_basp_handshake_payload);
    CHECK(c.received(hs.data(), hs.size()).ok());
  }
  {
    basp_stream_check c;
    char odd[7] = {};
    CHECK_FALSE(c.received(odd, sizeof odd).ok());
  }
}

namespace {

int64_t rss_kb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

size_t fd_count(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
    ++n;
  return n;
}

// A plain TCP connection to 127.0.0.1:port; -1 on failure.
int raw_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void send_bytes(int fd, const void* data, size_t n) {
  REQUIRE(::send(fd, data, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n));
}

// Whether the server closes `fd` within `timeout` (whatever it sent before, its handshake, is
// read and dropped).
bool closed_by_server(int fd, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left <= 0ms) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) != 1) continue;
    const ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got <= 0) return true;
  }
}

// 3 * 7 on the server's task through a real session.
bool client_works(int port, std::chrono::milliseconds patience) {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y =
      ops::mul(root.with_device("/job:ps/task:0").with_op_name("y"), x, ops::constant(root, 3.0f));
  session_options opts;
  opts.target = "caflow://127.0.0.1:" + std::to_string(port);
  opts.connect_timeout = patience;
  session sess(root, opts);
  auto out = sess.run({{x, tensor::scalar(7.0f)}}, {y});
  if (!out.ok()) MESSAGE("the client failed: ", out.get_status().to_string());
  return out.ok() && out->at(0).scalar_value<float>() == 21.0f;
}

// Waits until `pid` has at most `fds` descriptors open.
bool fds_back_to(pid_t pid, size_t fds, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (fd_count(pid) <= fds) return true;
    std::this_thread::sleep_for(50ms);
  }
  return fd_count(pid) <= fds;
}

}  // namespace

TEST_CASE("caflow-server: a forged BASP header, truncated headers and idle connections") {
  const int port = caflow::testing::free_ports(1)[0];
  child_process ps({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:" + std::to_string(port),
                    "--job", "ps", "--task", "0", "--intra-op-threads", "1"});
  REQUIRE_MESSAGE(ps.wait_for_output("serving at", 30s), ps.output());
  REQUIRE(client_works(port, 10s));  // everything a client needs is loaded: the baseline
  REQUIRE(fds_back_to(ps.pid(), fd_count(ps.pid()), 1s));
  std::this_thread::sleep_for(300ms);
  const size_t fds = fd_count(ps.pid());
  const int64_t rss = rss_kb(ps.pid());
  MESSAGE("baseline: ", fds, " fds, RSS ", rss / 1024, " MiB");
  const auto deadline = scaled(basp_handshake_timeout) + scaled(10s);  // plus slack for load

  // The 32 bytes that made a ps allocate 4 GB: closed at once, nothing allocated.
  const auto forged = header(client_handshake, 0xFFFFFFF0u);
  for (int i = 0; i < 5; ++i) {
    const int fd = raw_connect(port);
    REQUIRE(fd >= 0);
    send_bytes(fd, forged.data(), forged.size());
    CHECK(closed_by_server(fd, scaled(3s)));
    ::close(fd);
  }
  // A message before the handshake: closed at once.
  {
    const int fd = raw_connect(port);
    REQUIRE(fd >= 0);
    const auto early = header(direct_message, 100);
    send_bytes(fd, early.data(), early.size());
    CHECK(closed_by_server(fd, scaled(3s)));
    ::close(fd);
  }
  // Truncated headers and idle connections: closed when their handshake's time is up (or at
  // once, past the per-address limit), while a real client still gets in.
  std::vector<int> held;
  for (int i = 0; i < 10; ++i) {
    const int fd = raw_connect(port);
    REQUIRE(fd >= 0);
    send_bytes(fd, forged.data(), 10);
    held.push_back(fd);
  }
  for (int i = 0; i < 40; ++i) {
    const int fd = raw_connect(port);
    if (fd >= 0) held.push_back(fd);
  }
  const auto flooded = std::chrono::steady_clock::now();
  auto client = std::async(std::launch::async, [&] { return client_works(port, scaled(30s)); });
  size_t closed = 0;
  for (int fd : held) closed += closed_by_server(fd, deadline) ? 1 : 0;
  CHECK(closed == held.size());
  MESSAGE(held.size(), " idle or truncated connections closed within ",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - flooded).count(), " s");
  for (int fd : held) ::close(fd);
  CHECK(client.get());

  // The task is still up, its descriptors are back and its memory did not grow.
  CHECK(::kill(ps.pid(), 0) == 0);
  CHECK(::waitpid(ps.pid(), nullptr, WNOHANG) == 0);
  CHECK_MESSAGE(fds_back_to(ps.pid(), fds, scaled(10s)), "fds ", fd_count(ps.pid()), " against ",
                fds);
  const int64_t grown_kb = rss_kb(ps.pid()) - rss;
  MESSAGE("RSS grew by ", grown_kb / 1024.0, " MiB");
  CHECK(grown_kb < 64 * 1024);
  CHECK(client_works(port, 10s));
}

TEST_CASE("caflow-server with TLS: idle and garbage connections are closed, a client gets in") {
  const caflow::testing::test_certs certs("caflow_basp_guard_");
  if (!certs.made) {
    MESSAGE("skipped: the openssl command is missing");
    return;
  }
  const int port = caflow::testing::free_ports(1)[0];
  child_process ps({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "ps=127.0.0.1:" + std::to_string(port),
                    "--job", "ps", "--task", "0", "--intra-op-threads", "1", "--tls-cert",
                    certs.file("server.pem"), "--tls-key", certs.file("server.key"), "--tls-ca",
                    certs.file("ca.pem")});
  REQUIRE_MESSAGE(ps.wait_for_output("serving at", 30s), ps.output());
  std::this_thread::sleep_for(300ms);
  const size_t fds = fd_count(ps.pid());
  const int64_t rss = rss_kb(ps.pid());
  // A BASP header where a TLS record should be, and connections that never start TLS.
  std::vector<int> held;
  const auto forged = header(client_handshake, 0xFFFFFFF0u);
  for (int i = 0; i < 3; ++i) {
    const int fd = raw_connect(port);
    REQUIRE(fd >= 0);
    send_bytes(fd, forged.data(), forged.size());
    held.push_back(fd);
  }
  for (int i = 0; i < 20; ++i) {
    const int fd = raw_connect(port);
    if (fd >= 0) held.push_back(fd);
  }
  const auto deadline = scaled(basp_handshake_timeout) + scaled(10s);
  size_t closed = 0;
  for (int fd : held) closed += closed_by_server(fd, deadline) ? 1 : 0;
  CHECK(closed == held.size());
  for (int fd : held) ::close(fd);
  CHECK(::waitpid(ps.pid(), nullptr, WNOHANG) == 0);
  CHECK_MESSAGE(fds_back_to(ps.pid(), fds, scaled(10s)), "fds ", fd_count(ps.pid()), " against ",
                fds);
  const int64_t tls_grown_kb = rss_kb(ps.pid()) - rss;
  MESSAGE("TLS: fds back to ", fds, ", RSS grew by ", tls_grown_kb / 1024.0, " MiB");
  CHECK(tls_grown_kb < 64 * 1024);
  // An authenticated client still gets in.
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y =
      ops::mul(root.with_device("/job:ps/task:0").with_op_name("y"), x, ops::constant(root, 3.0f));
  session_options opts;
  opts.target = "caflow://127.0.0.1:" + std::to_string(port);
  opts.connect_timeout = 10s;
  opts.security = certs.as("client");
  session sess(root, opts);
  auto out = sess.run({{x, tensor::scalar(7.0f)}}, {y});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == 21.0f);
}
