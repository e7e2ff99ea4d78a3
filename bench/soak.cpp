// Soak: many small steps on a three-process cluster, watching every process's resident memory.
//
//   /job:worker/task:0   x (fed) ──┬─▶ a = x * 2 ──┐
//   /job:worker/task:1             └─▶ b = x + 1 ──┤   (cut edges both ways)
//   /job:ps/task:0                      v += a - b ◀┘   fetched
//
// Three caflow-server processes (the binary, as deployed) on free loopback ports; the client
// session in this process targets worker 0's master (see --master-on-ps). With x = 3 every step adds 2 to v, so
// step i (from 0) fetches 2 (i + 1): checked on every step, exact in float32 up to 2^24.
//
// Prints steps/s over the whole run and, per task, VmRSS (/proc/<pid>/status) at step 10,000
// (half of a run shorter than 20,000 steps: caches and pools have filled by then) and at the
// end, with the growth between them:
//   RESULT soak_steps_per_s value=<v> unit=steps/s
//   RESULT soak_rss_growth_pct_<job>_<task> value=<v> unit=% target=5
// Usage: bench_soak [--steps N] [--server PATH] [--master-on-ps]   (default 100000 steps; the
// server binary defaults to ../apps/caflow-server next to this binary's directory; the session
// targets worker 0's master, or the ps task's with --master-on-ps, to tell the master role's
// memory from the worker role's). Exits 1 when a step
// fails or fetches a wrong value, or when any process grew by 5% or more.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "forked_servers.hpp"
#include "graph/client/ops/ops.hpp"

extern char** environ;

using namespace caflow;
using clock_type = std::chrono::steady_clock;

namespace {

// One caflow-server child, its output in a log file. Stopped (SIGTERM, then SIGKILL) and reaped
// by the destructor.
class server_process {
 public:
  // `secret`: the run's cluster id, so the tasks serve in the default, authenticated
  // configuration (a secret on one host; see net/security/plaintext_policy.hpp).
  server_process(const std::string& binary, const std::string& cluster, const std::string& secret,
                 const std::string& job, int task, const std::filesystem::path& log)
      : name_(job + "_" + std::to_string(task)), log_(log) {
    const std::vector<std::string> args = {binary, "--cluster-id", secret, "--cluster", cluster, "--job", job, "--task",
                                           std::to_string(task), "--intra-op-threads", "1",
                                           "--inter-op-threads", "1"};
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
    const int err = posix_spawn(&pid_, binary.c_str(), &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    if (err != 0) {
      std::fprintf(stderr, "cannot start %s: %s\n", binary.c_str(), std::strerror(err));
      std::exit(1);
    }
  }
  ~server_process() { bench::stop_child(pid_); }
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }

  // Until its log says it serves (every peer reachable); false after `timeout` or its exit.
  bool wait_serving(std::chrono::seconds timeout) const {
    const auto until = clock_type::now() + timeout;
    while (clock_type::now() < until) {
      if (log_text().find("serving at") != std::string::npos) return true;
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  std::string log_text() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // VmRSS in KiB; 0 when the process is gone.
  long rss_kib() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return 0;
  }

 private:
  std::string name_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
};

std::string default_server_binary() {
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path() / "apps" / "caflow-server").string();
}

}  // namespace

int main(int argc, char** argv) {
  long steps = 100000;
  std::string binary;
  bool master_on_ps = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--steps" && i + 1 < argc) {
      steps = std::strtol(argv[++i], nullptr, 10);
    } else if (flag == "--server" && i + 1 < argc) {
      binary = argv[++i];
    } else if (flag == "--master-on-ps") {
      master_on_ps = true;
    } else {
      std::fprintf(stderr, "usage: %s [--steps N] [--server PATH] [--master-on-ps]\n", argv[0]);
      return 2;
    }
  }
  bench::check(steps >= 10, "--steps must be at least 10");
  if (binary.empty()) binary = default_server_binary();
  bench::check(::access(binary.c_str(), X_OK) == 0, "caflow-server binary (--server PATH)");
  // Growth is measured from here: step 10,000, or half of a run of less than 20,000 steps.
  const long baseline_step = std::min(10000L, steps / 2);

  const auto ports = bench::free_ports(3);
  const std::string cluster = "ps=127.0.0.1:" + std::to_string(ports[0]) +
                              ";worker=127.0.0.1:" + std::to_string(ports[1]) +
                              ",127.0.0.1:" + std::to_string(ports[2]);
  const auto logs = std::filesystem::temp_directory_path() /
                    ("caflow-soak-" + std::to_string(::getpid()));
  std::filesystem::create_directories(logs);
  std::random_device entropy;
  const std::string secret = "soak-" + std::to_string(entropy()) + "-" + std::to_string(entropy());
  std::vector<std::unique_ptr<server_process>> servers;
  servers.push_back(
      std::make_unique<server_process>(binary, cluster, secret, "ps", 0, logs / "ps_0.log"));
  for (int t = 0; t < 2; ++t)
    servers.push_back(std::make_unique<server_process>(
        binary, cluster, secret, "worker", t, logs / ("worker_" + std::to_string(t) + ".log")));
  for (const auto& s : servers)
    if (!s->wait_serving(std::chrono::seconds(60))) {
      std::fprintf(stderr, "%s did not start serving:\n%s\n", s->name().c_str(),
                   s->log_text().c_str());
      return 1;
    }

  auto root = scope::new_root();
  auto w0 = root.with_device("/job:worker/task:0");
  auto w1 = root.with_device("/job:worker/task:1");
  auto ps = root.with_device("/job:ps/task:0");
  auto x = ops::placeholder(w0.with_op_name("x"), dtype::float32);
  auto a = ops::mul(w0.with_op_name("a"), x, ops::constant(w0, 2.0f));
  auto b = ops::add(w1.with_op_name("b"), x, ops::constant(w1, 1.0f));
  auto v = ops::variable(ps.with_op_name("v"), tensor_shape{}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), v, ops::constant(ps, 0.0f));
  auto update = ops::assign_add(ps.with_op_name("update"), v, ops::sub(ps, a, b));

  session_options opts;
  opts.target = "caflow://127.0.0.1:" + std::to_string(ports[master_on_ps ? 0 : 1]);
  opts.security.cluster_id = secret;
  opts.connect_timeout = std::chrono::seconds(30);
  opts.operation_timeout = std::chrono::seconds(30);
  session sess(root, opts);
  auto initialized = sess.run({init});
  if (!initialized.ok()) {
    std::fprintf(stderr, "init: %s\n", initialized.get_status().to_string().c_str());
    return 1;
  }

  const session::feed_list feeds{{x, tensor::scalar(3.0f)}};
  std::vector<long> rss_base(servers.size());
  std::printf("%ld steps on ps_0, worker_0, worker_1 (pids", steps);
  for (const auto& s : servers) std::printf(" %d", s->pid());
  std::printf("); VmRSS in KiB every tenth of the run:\n");
  std::fflush(stdout);
  const auto start = clock_type::now();
  for (long i = 0; i < steps; ++i) {
    auto out = sess.run(feeds, {update});
    if (!out.ok()) {
      std::fprintf(stderr, "step %ld: %s\n", i, out.get_status().to_string().c_str());
      return 1;
    }
    const float expected = 2.0f * static_cast<float>(i + 1);
    if (out->at(0).scalar_value<float>() != expected) {
      std::fprintf(stderr, "step %ld fetched %g, not %g\n", i, out->at(0).scalar_value<float>(),
                   expected);
      return 1;
    }
    if (i + 1 == baseline_step)
      for (size_t s = 0; s < servers.size(); ++s) rss_base[s] = servers[s]->rss_kib();
    if ((i + 1) % (steps / 10) == 0) {
      const double secs = std::chrono::duration<double>(clock_type::now() - start).count();
      std::printf("  step %7ld  %6.0f steps/s ", i + 1, static_cast<double>(i + 1) / secs);
      for (const auto& s : servers) std::printf(" %s %ld", s->name().c_str(), s->rss_kib());
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  const double secs = std::chrono::duration<double>(clock_type::now() - start).count();
  bench::result("soak_steps_per_s", static_cast<double>(steps) / secs, "steps/s");
  int over = 0;
  for (size_t s = 0; s < servers.size(); ++s) {
    const long end = servers[s]->rss_kib();
    bench::check(rss_base[s] > 0 && end > 0, "a server process died");
    const double growth = 100.0 * static_cast<double>(end - rss_base[s]) /
                          static_cast<double>(rss_base[s]);
    std::printf("RESULT soak_rss_growth_pct_%s value=%.3g unit=%% target=5 from_kib=%ld "
                "to_kib=%ld from_step=%ld\n",
                servers[s]->name().c_str(), growth, rss_base[s], end, baseline_step);
    over += growth >= 5.0;
  }
  std::fflush(stdout);
  servers.clear();
  std::error_code ignored;
  std::filesystem::remove_all(logs, ignored);
  return over ? 1 : 0;
}
