// How a step's cost and a cluster's start grow with the number of workers. For N = 1, 2, 4, ...,
// FANOUT_MAX (default 128) workers, each a forked server process, and a master task served in
// the driving process: a scalar x fed on the master, y_i = x + i on worker i, AddN on the
// master, fetched. Per N it prints
//   form_ms          from forking the workers to the first step's answer (the master contacts
//                    every worker then: connections are lazy)
//   step_us          median step latency
//   cpu_us_per_step  the driving process's CPU per step (client + master + its task's loop)
//   master_cpu_us_per_worker  that CPU's growth per worker over N = 1
//   rss_mb, pss_mb, threads   of an idle-again worker (means over the workers)
// Each N runs in a child of its own, which forks its workers before it starts a thread.
// Targets on the 2-core host: 64 workers form in <= 5 s, step <= 1.5 ms (goal 0.6 ms), master
// CPU per worker per step <= 8 us.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "bench_util.hpp"
#include "forked_servers.hpp"
#include "graph/client/ops/ops.hpp"

using namespace caflow;
using clock_type = std::chrono::steady_clock;

namespace {

struct figures {
  double form_ms = 0, step_us = 0, cpu_us_per_step = 0, rss_mb = 0, pss_mb = 0, threads = 0;
};

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A /proc/<pid>/<file> field in kB (or a count), 0 when absent.
double proc_field(pid_t pid, const char* file, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::atof(line.c_str() + key.size() + 1);
  return 0;
}

// Runs in the child for one N; writes its figures to `out`.
figures measure(int n, int steps) {
  figures f;
  auto ports = bench::free_ports(n + 1);
  std::string spec = "master=127.0.0.1:" + std::to_string(ports[0]) + ";worker=";
  for (int i = 0; i < n; ++i) spec += (i ? "," : "") + std::string("127.0.0.1:") + std::to_string(ports[i + 1]);
  const auto start = clock_type::now();
  std::vector<std::unique_ptr<bench::forked_server>> workers;
  for (int i = 0; i < n; ++i)
    workers.push_back(std::make_unique<bench::forked_server>(spec, "worker", i));
  server_options mo;
  mo.cluster = *cluster_spec::from_flag(spec);
  mo.job = "master";
  mo.cpu.intra_op_threads = 1;
  auto master = server::start(mo);
  bench::check(master.ok(), "master server");
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  std::vector<output> ys;
  for (int i = 0; i < n; ++i) {
    auto at = root.with_device("/job:worker/task:" + std::to_string(i));
    ys.push_back(ops::add(at, x, ops::constant(at, static_cast<float>(i))));
  }
  auto total = ops::add_n(root, ys);
  session_options so;
  so.target = (*master)->target();
  so.connect_timeout = std::chrono::seconds(60);
  session sess(root, so);
  const float expect = n * 1.0f + n * (n - 1) / 2.0f;
  auto step = [&] {
    auto out = sess.run({{x, tensor::scalar<float>(1.0f)}}, {total});
    if (!out.ok()) {
      std::fprintf(stderr, "fanout N=%d: %s\n", n, out.get_status().to_string().c_str());
      std::exit(1);
    }
    bench::check(out->at(0).scalar_value<float>() == expect, "fanout sum");
  };
  step();
  f.form_ms = std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  for (int i = 0; i < 20; ++i) step();
  std::vector<double> us(steps);
  const double cpu0 = cpu_seconds();
  for (double& t : us) {
    const auto s = clock_type::now();
    step();
    t = std::chrono::duration<double, std::micro>(clock_type::now() - s).count();
  }
  f.cpu_us_per_step = (cpu_seconds() - cpu0) * 1e6 / steps;
  std::nth_element(us.begin(), us.begin() + steps / 2, us.end());
  f.step_us = us[steps / 2];
  for (const auto& w : workers) {
    f.rss_mb += proc_field(w->pid(), "status", "VmRSS") / 1024 / n;
    f.pss_mb += proc_field(w->pid(), "smaps_rollup", "Pss") / 1024 / n;
    f.threads += proc_field(w->pid(), "status", "Threads") / n;
  }
  return f;
}

}  // namespace

int main() {
  const char* max_env = std::getenv("FANOUT_MAX");
  const int max_n = max_env ? std::atoi(max_env) : 128;
  const char* only_env = std::getenv("FANOUT_ONLY");  // one N, e.g. under perf
  const int only = only_env ? std::atoi(only_env) : 0;
  std::printf("%8s %10s %10s %16s %26s %8s %8s %8s\n", "workers", "form_ms", "step_us",
              "cpu_us_per_step", "master_cpu_us_per_worker", "rss_mb", "pss_mb", "threads");
  double cpu_at_one = 0;
  for (int n = 1; n <= max_n; n *= 2) {
    if (only != 0 && n != only && n != 1) continue;
    int pipe_fd[2];
    bench::check(::pipe(pipe_fd) == 0, "pipe");
    std::fflush(stdout);  // or the child writes what the parent buffered a second time
    const pid_t child = ::fork();
    bench::check(child >= 0, "fork");
    if (child == 0) {
      ::close(pipe_fd[0]);
      const char* steps_env = std::getenv("FANOUT_STEPS");  // more, to profile one N
      const figures f = measure(n, steps_env ? std::atoi(steps_env) : n >= 64 ? 300 : 1000);
      (void)!::write(pipe_fd[1], &f, sizeof f);
      std::fflush(stdout);
      ::_exit(0);  // the workers' destructors ran in measure(): nothing else to wait for
    }
    ::close(pipe_fd[1]);
    figures f;
    const bool got = ::read(pipe_fd[0], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
    ::close(pipe_fd[0]);
    int rc = 0;
    ::waitpid(child, &rc, 0);
    bench::check(got, "a run of the fanout child");
    if (n == 1) cpu_at_one = f.cpu_us_per_step;
    const double per_worker = n == 1 ? 0 : (f.cpu_us_per_step - cpu_at_one) / (n - 1);
    std::printf("%8d %10.0f %10.0f %16.0f %26.1f %8.1f %8.1f %8.1f\n", n, f.form_ms, f.step_us,
                f.cpu_us_per_step, per_worker, f.rss_mb, f.pss_mb, f.threads);
    std::fflush(stdout);
    const std::string tag = "fanout_" + std::to_string(n);
    bench::result((tag + "_step_us").c_str(), f.step_us, "us");
    bench::result((tag + "_form_ms").c_str(), f.form_ms, "ms");
    if (n > 1) bench::result((tag + "_master_cpu_us_per_worker").c_str(), per_worker, "us");
  }
  return 0;
}
