// Throughput of one 64 MiB float32 tensor per step crossing from one server process to
// another over loopback, through caflow, against a plain TCP socket moving the same bytes.
//
//   /job:a/task:0   v (variable, float32[16M]) ── x = Identity(v)
//                                                    │ cut edge: 64 MiB (bulk channel)
//   /job:b/task:0                                  y = Identity(x) ── Slice(y, [0], [1]) fetched
//
// The client (this process) steps through /job:a's master; only the cut edge carries the
// 64 MiB, the fetch is one float. Baseline: a forked child writes the same number of 64 MiB
// buffers into a loopback socket, this process reads them into one reused buffer. Three
// rounds, socket then caflow; the result is each side's median round.
// Target: ratio >= 0.8.
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <vector>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "forked_servers.hpp"
#include "graph/client/ops/ops.hpp"

using namespace caflow;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr int64_t elements = int64_t{16} << 20;
constexpr size_t bytes = static_cast<size_t>(elements) * sizeof(float);
constexpr int transfers = 12;
// Baseline and caflow take turns, so a slow stretch of this shared machine hits both; each
// side's median round counts.
constexpr int rounds = 3;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// A forked child that, once told, connects to 127.0.0.1:`port` and writes 1 + `transfers`
// buffers of 64 MiB (one to warm up). Forked before this process starts a thread; it only
// writes and exits.
class baseline_writer {
 public:
  explicit baseline_writer(const sockaddr_in& to) {
    int go[2];
    bench::check(::pipe(go) == 0, "baseline: pipe");
    pid_ = ::fork();
    bench::check(pid_ >= 0, "baseline: fork");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::close(go[1]);
      std::vector<char> buf(bytes, 1);
      char c = 0;
      if (::read(go[0], &c, 1) != 1) ::_exit(1);
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) ::_exit(1);
      for (int i = 0; i < transfers + 1; ++i)
        for (size_t done = 0; done < bytes;) {
          const ssize_t n = ::write(fd, buf.data() + done, bytes - done);
          if (n <= 0) ::_exit(1);
          done += static_cast<size_t>(n);
        }
      ::close(fd);
      ::_exit(0);
    }
    ::close(go[0]);
    go_ = go[1];
  }
  ~baseline_writer() {
    ::close(go_);
    bench::stop_child(pid_);
  }
  void start() { bench::check(::write(go_, "g", 1) == 1, "baseline: start the writer"); }

 private:
  pid_t pid_ = -1;
  int go_ = -1;
};

// The socket baseline's listener and its writers, one per round.
struct socket_baseline {
  int listener = -1;
  sockaddr_in address{};
  std::vector<std::unique_ptr<baseline_writer>> writers;

  socket_baseline() {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof address;
    bench::check(listener >= 0 &&
                     ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::listen(listener, rounds) == 0 &&
                     ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &len) == 0,
                 "baseline: listen on 127.0.0.1");
    for (int r = 0; r < rounds; ++r) writers.push_back(std::make_unique<baseline_writer>(address));
  }
  ~socket_baseline() { ::close(listener); }

  // GB/s of one round: `transfers` x 64 MiB from writer `r` into one reused buffer.
  double round(int r, std::vector<char>& buf) {
    writers[r]->start();
    int fd = ::accept(listener, nullptr, nullptr);
    bench::check(fd >= 0, "baseline: accept");
    auto read_one = [&] {
      for (size_t done = 0; done < bytes;) {
        const ssize_t n = ::read(fd, buf.data() + done, bytes - done);
        bench::check(n > 0, "baseline: read");
        done += static_cast<size_t>(n);
      }
    };
    read_one();  // warm-up: the writer's buffer is faulted in
    const auto start = clock_type::now();
    for (int i = 0; i < transfers; ++i) read_one();
    const double s = seconds_since(start);
    ::close(fd);
    return transfers * static_cast<double>(bytes) / s / 1e9;
  }
};

}  // namespace

int main() {
  // Every fork happens before this process starts a thread (the session starts CAF's).
  socket_baseline baseline;
  const auto ports = bench::free_ports(2);
  const std::string cluster =
      "a=127.0.0.1:" + std::to_string(ports[0]) + ";b=127.0.0.1:" + std::to_string(ports[1]);
  bench::forked_server a(cluster, "a", 0), b(cluster, "b", 0);

  auto root = scope::new_root();
  auto on_a = root.with_device("/job:a/task:0");
  auto on_b = root.with_device("/job:b/task:0");
  auto v = ops::variable(on_a.with_op_name("v"), partial_shape{elements}, dtype::float32);
  auto init = ops::assign(on_a.with_op_name("init"), v,
                          ops::fill(on_a, ops::constant(on_a, std::vector<int64_t>{elements}, {1}),
                                    ops::constant(on_a, 0.5f)));
  auto x = ops::identity(on_a.with_op_name("x"), v);
  auto y = ops::identity(on_b.with_op_name("y"), x);
  auto first = ops::slice(on_b.with_op_name("first"), y, {0}, {1});

  session_options opts;
  opts.target = "caflow://127.0.0.1:" + std::to_string(ports[0]);
  opts.connect_timeout = std::chrono::seconds(30);
  opts.operation_timeout = std::chrono::seconds(60);
  {
    session sess(root, opts);
    const status st = sess.run_targets({{init.node, {}}});
    if (!st.ok()) {
      std::fprintf(stderr, "init: %s\n", st.to_string().c_str());
      return 1;
    }
    auto step = [&] {
      auto out = sess.run({first});
      if (!out.ok()) std::fprintf(stderr, "step: %s\n", out.get_status().to_string().c_str());
      bench::check(out.ok() && out->at(0).data<float>()[0] == 0.5f, "fetched 0.5");
    };
    step();  // warm-up: registers the partitions
    step();
    std::vector<char> buf(bytes);
    std::vector<double> socket_gbps, caflow_gbps;
    for (int r = 0; r < rounds; ++r) {
      socket_gbps.push_back(baseline.round(r, buf));
      const auto start = clock_type::now();
      for (int i = 0; i < transfers; ++i) step();
      caflow_gbps.push_back(transfers * static_cast<double>(bytes) / seconds_since(start) / 1e9);
      std::printf("round %d: socket %.3f GB/s, caflow %.3f GB/s\n", r + 1, socket_gbps.back(),
                  caflow_gbps.back());
    }
    bench::result("sendrecv_gbps", median(caflow_gbps), "GB/s", median(socket_gbps));
  }
  return 0;
}
