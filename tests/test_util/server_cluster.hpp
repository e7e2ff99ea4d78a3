#pragma once
// A cluster of caflow-server processes on 127.0.0.1 of any size (ports picked free): a ps job and
// a worker job, each task its own process, with per-task extra flags. Every process is killed
// and reaped when the struct goes. Header only: it names the server binary the test was built
// with (CAFLOW_SERVER_BINARY).
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "test_util/process.hpp"

namespace caflow::testing {

struct server_cluster {
  // `extra(job, task)`: flags for that task's command line after the defaults.
  server_cluster(int ps_tasks, int workers,
                 std::function<std::vector<std::string>(const std::string&, int)> extra = {});

  int ps_tasks, workers;
  std::vector<int> ports;
  std::string spec;
  std::vector<std::unique_ptr<child_process>> processes;  // ps tasks first, then workers

  // Waits (bounded by `timeout` in all) for every task to say it serves; false names the first
  // that did not, with its output, in a doctest message.
  bool ready(std::chrono::milliseconds timeout);
  child_process& ps(int i) { return *processes[i]; }
  child_process& worker(int i) { return *processes[ps_tasks + i]; }
  std::string address(int index) const { return "127.0.0.1:" + std::to_string(ports[index]); }
  std::string worker_target(int i) const { return "caflow://" + address(ps_tasks + i); }
  std::vector<pid_t> pids() const;
};

inline server_cluster::server_cluster(int ps, int w,
                               std::function<std::vector<std::string>(const std::string&, int)> extra)
    : ps_tasks(ps), workers(w), ports(free_ports(ps + w)) {
  auto list = [&](int from, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += (i ? "," : "") + std::string("127.0.0.1:") + std::to_string(ports[from + i]);
    return out;
  };
  spec = (ps > 0 ? "ps=" + list(0, ps) + ";" : std::string()) + "worker=" + list(ps, w);
  for (int i = 0; i < ps + w; ++i) {
    const std::string job = i < ps ? "ps" : "worker";
    const int task = i < ps ? i : i - ps;
    std::vector<std::string> argv{CAFLOW_SERVER_BINARY, "--insecure", "--cluster", spec, "--job",
                                  job, "--task", std::to_string(task), "--intra-op-threads", "1",
                                  "--inter-op-threads", "1", "--peer-wait-ms", "20000"};
    if (extra) {
      auto more = extra(job, task);
      argv.insert(argv.end(), more.begin(), more.end());
    }
    processes.push_back(std::make_unique<child_process>(argv));
  }
}

inline bool server_cluster::ready(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (size_t i = 0; i < processes.size(); ++i) {
    const auto left = std::max(std::chrono::milliseconds(1),
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()));
    if (!processes[i]->wait_for_output("serving at", left)) {
      MESSAGE("task ", i, " did not serve: ", processes[i]->output());
      return false;
    }
  }
  return true;
}

inline std::vector<pid_t> server_cluster::pids() const {
  std::vector<pid_t> out;
  for (const auto& p : processes) out.push_back(p->pid());
  return out;
}

}  // namespace caflow::testing
