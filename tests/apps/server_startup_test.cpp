// caflow-server's start-up has one deadline and stops on SIGTERM or SIGINT at any point: against
// a peer that accepts connections and never answers the handshake, the task exits within its
// --startup-timeout-ms with a line naming what it waited for, and a stop signal while it waits
// ends it at once, naming the same. Real processes; the silent peer is a socket of this test.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace caflow::testing;
using namespace std::chrono_literals;

namespace {

// Listens on 127.0.0.1:`port` and accepts every connection, then says nothing.
class silent_peer {
 public:
  explicit silent_peer(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    acceptor_ = std::thread([this] {
      while (!stop_) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) accepted_.push_back(c);
      }
    });
  }
  ~silent_peer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    acceptor_.join();
    for (int c : accepted_) ::close(c);
  }

 private:
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::vector<int> accepted_;
  std::thread acceptor_;
};

struct starting_worker {
  std::vector<int> ports = free_ports(2);
  silent_peer ps{ports[0]};
  std::unique_ptr<child_process> worker;
  explicit starting_worker(const std::string& startup_timeout_ms) {
    const std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=127.0.0.1:" +
                             std::to_string(ports[1]);
    worker = std::make_unique<child_process>(std::vector<std::string>{
        CAFLOW_SERVER_BINARY, "--insecure", "--cluster", spec, "--job", "worker", "--task", "0",
        "--peer-wait-ms", "60000", "--startup-timeout-ms", startup_timeout_ms});
  }
  std::string ps_address() const { return "127.0.0.1:" + std::to_string(ports[0]); }
};

}  // namespace

TEST_CASE("a start-up past its deadline exits 1 naming the peer it waited for") {
  starting_worker w("3000");
  const auto start = std::chrono::steady_clock::now();
  const int code = exit_code(*w.worker, 20s);
  const auto took = std::chrono::steady_clock::now() - start;
  MESSAGE(w.worker->output());
  CHECK(code == 1);
  CHECK(took < 10s);
  CHECK(w.worker->output().find("caflow-server: /job:worker/task:0 did not start within 3000 ms: ") !=
        std::string::npos);
  CHECK(w.worker->output().find("/job:ps/replica:0/task:0") != std::string::npos);
  CHECK(w.worker->output().find(w.ps_address()) != std::string::npos);
}

TEST_CASE("SIGTERM and SIGINT stop a task that is still starting, at once") {
  for (int sig : {SIGTERM, SIGINT}) {
    CAPTURE(sig);
    starting_worker w("60000");
    std::this_thread::sleep_for(1500ms);  // waiting for the ps by now
    const auto start = std::chrono::steady_clock::now();
    w.worker->signal(sig);
    const int code = exit_code(*w.worker, 10s);
    MESSAGE(w.worker->output());
    CHECK(code == 0);
    CHECK(std::chrono::steady_clock::now() - start < 3s);
    CHECK(w.worker->output().find(std::string("stopped by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                                  " while starting (") != std::string::npos);
    CHECK(w.worker->output().find("/job:ps/replica:0/task:0") != std::string::npos);
  }
}
