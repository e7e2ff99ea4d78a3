// caflow-server serves as soon as its port is open: it waits for no peer at start-up (the
// master contacts a task when a session first needs it). Against a peer that accepts connections
// and never answers the handshake, the task still serves at once; a session that needs that peer
// fails within the peer wait, naming the peer and its address; SIGTERM or SIGINT stop the task at
// once even while its master is still trying that peer; a task that cannot open its port exits 1
// naming the address. Real processes; the silent peer is a socket of this test.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/three_process_cluster.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
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
  explicit starting_worker(const std::string& peer_wait_ms) {
    const std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=127.0.0.1:" +
                             std::to_string(ports[1]);
    worker = std::make_unique<child_process>(std::vector<std::string>{
        CAFLOW_SERVER_BINARY, "--insecure", "--cluster", spec, "--job", "worker", "--task", "0",
        "--peer-wait-ms", peer_wait_ms, "--startup-timeout-ms", "10000"});
  }
  std::string ps_address() const { return "127.0.0.1:" + std::to_string(ports[0]); }
  std::string target() const { return "caflow://127.0.0.1:" + std::to_string(ports[1]); }
};

// A step that needs the ps: its master has to contact it.
struct needs_ps {
  scope root = scope::new_root();
  output y = ops::identity(root.with_device("/job:ps/task:0").with_op_name("y"),
                           ops::constant(root, 1.0f));
};

}  // namespace

TEST_CASE("a task serves at once beside a silent peer; a session that needs it fails naming it") {
  starting_worker w("3000");
  REQUIRE_MESSAGE(w.worker->wait_for_output("serving at", 5s), w.worker->output());
  needs_ps g;
  auto opts = remote(w.target());
  session sess(g.root, opts);
  const auto start = std::chrono::steady_clock::now();
  auto out = sess.run({}, {g.y});
  const auto took = std::chrono::steady_clock::now() - start;
  check_error(out, "/job:ps/replica:0/task:0");
  check_error(out, w.ps_address());
  CHECK(out.get_status().code() == error_code::unavailable);
  CHECK(took < scaled(15s));
  w.worker->signal(SIGTERM);
  CHECK(exit_code(*w.worker, 10s) == 0);
}

TEST_CASE("SIGTERM and SIGINT stop a task at once while its master waits for a silent peer") {
  for (int sig : {SIGTERM, SIGINT}) {
    CAPTURE(sig);
    starting_worker w("60000");
    REQUIRE_MESSAGE(w.worker->wait_for_output("serving at", 5s), w.worker->output());
    needs_ps g;
    auto opts = remote(w.target());
    auto running = std::async(std::launch::async, [&] {
      session sess(g.root, opts);
      return sess.run({}, {g.y}).get_status();
    });
    std::this_thread::sleep_for(1500ms);  // the master is trying the ps by now
    const auto start = std::chrono::steady_clock::now();
    w.worker->signal(sig);
    const int code = exit_code(*w.worker, 10s);
    MESSAGE(w.worker->output());
    CHECK(code == 0);
    CHECK(std::chrono::steady_clock::now() - start < 4s);
    CHECK(w.worker->output().find("stopped") != std::string::npos);
    REQUIRE(running.wait_for(scaled(20s)) == std::future_status::ready);
    CHECK_FALSE(running.get().ok());
  }
}

TEST_CASE("a task that cannot open its port exits 1 naming the address") {
  std::vector<int> ports = free_ports(1);
  silent_peer taken{ports[0]};
  child_process worker({CAFLOW_SERVER_BINARY, "--insecure", "--cluster",
                        "worker=127.0.0.1:" + std::to_string(ports[0]), "--job", "worker",
                        "--task", "0"});
  CHECK(exit_code(worker, 10s) == 1);
  CHECK(worker.output().find("cannot open 127.0.0.1:" + std::to_string(ports[0])) !=
        std::string::npos);
}

TEST_CASE("caflow-server refuses device filters it cannot read, naming the filter") {
  child_process bad({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "worker=127.0.0.1:1",
                     "--job", "worker", "--task", "0", "--device-filters",
                     "/job:ps,/job:worker/taks:1"});
  CHECK(exit_code(bad, 10s) == 2);
  CHECK(bad.output().find("device filter '/job:worker/taks:1'") != std::string::npos);
  child_process empty({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "worker=127.0.0.1:1",
                       "--job", "worker", "--task", "0", "--device-filters", "/job:ps,,/job:worker"});
  CHECK(exit_code(empty, 10s) == 2);
  CHECK(empty.output().find("have an empty entry") != std::string::npos);
}

TEST_CASE("caflow-server refuses a step timeout that is not a positive number of milliseconds") {
  for (const char* value : {"0", "-5", "soon"}) {
    CAPTURE(value);
    child_process bad({CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "worker=127.0.0.1:1",
                       "--job", "worker", "--task", "0", "--step-timeout-ms", value});
    CHECK(exit_code(bad, 10s) == 2);
    CHECK(bad.output().find("--step-timeout-ms") != std::string::npos);
  }
}
