#pragma once
// caflow servers in forked child processes, for the distributed benchmarks. A child is forked
// before the parent starts any thread, dies with its parent (PR_SET_PDEATHSIG), and is always
// stopped and reaped by the destructor with bounded waits: a benchmark never leaves a server
// behind.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "actors/server/server.hpp"
#include "net/cluster_spec.hpp"
#include "net/loopback_ports.hpp"

namespace caflow::bench {

// `n` distinct TCP ports on 127.0.0.1 that were free a moment ago (net/loopback_ports.hpp);
// exits when there are not that many.
inline std::vector<int> free_ports(int n) {
  auto ports = free_loopback_ports(n);
  if (!ports.ok()) {
    std::fprintf(stderr, "free_ports: %s\n", ports.get_status().to_string().c_str());
    std::exit(1);
  }
  return *std::move(ports);
}

// Stops (SIGTERM, then SIGKILL after `patience`) and reaps a child; never blocks longer.
inline void stop_child(pid_t pid, std::chrono::milliseconds patience = std::chrono::seconds(5)) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + patience;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

class forked_server {
 public:
  // Forks a child that serves task `task` of `job` in the cluster `cluster_flag` until it is
  // stopped. REQUIRES: no thread has been started in this process yet.
  forked_server(const std::string& cluster_flag, const std::string& job, int task,
                int intra_op_threads = 1, int scheduler_threads = 0, bool same_host_rings = true) {
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) {
      std::perror("fork");
      std::exit(1);
    }
    if (pid_ > 0) return;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    auto spec = cluster_spec::from_flag(cluster_flag);
    if (!spec.ok()) ::_exit(1);
    server_options o;
    o.cluster = *spec;
    o.job = job;
    o.task = task;
    o.cpu.intra_op_threads = intra_op_threads;
    o.cpu.inter_op_threads = 1;
    o.scheduler_threads = scheduler_threads;
    o.same_host_rings = same_host_rings;
    // SIGTERM stops the server as caflow-server's does, so that it leaves nothing behind (its
    // shm socket directory); every thread the server starts inherits the blocked mask.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    auto srv = server::start(o);
    if (!srv.ok()) {
      std::fprintf(stderr, "server /job:%s/task:%d: %s\n", job.c_str(), task,
                   srv.get_status().to_string().c_str());
      ::_exit(1);
    }
    int sig = 0;
    sigwait(&stop, &sig);
    srv->reset();
    ::_exit(0);
  }
  ~forked_server() { stop_child(pid_); }
  pid_t pid() const { return pid_; }
  forked_server(const forked_server&) = delete;
  forked_server& operator=(const forked_server&) = delete;

 private:
  pid_t pid_ = -1;
};

}  // namespace caflow::bench
