#include "apps/train/embedded_cluster.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace caflow::train_app {
namespace {

// Ports the kernel hands out for binding to port 0; all sockets stay open until every port
// is chosen so the ports differ.
status_or<std::vector<int>> free_loopback_ports(int n) {
  std::vector<int> fds, ports;
  status st;
  for (int i = 0; i < n && st.ok(); ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      st = errors::unavailable("cannot find a free port on 127.0.0.1");
    } else {
      ports.push_back(ntohs(addr.sin_port));
    }
    if (fd >= 0) fds.push_back(fd);
  }
  for (int fd : fds) ::close(fd);
  if (!st.ok()) return st;
  return ports;
}

}  // namespace

status_or<std::unique_ptr<embedded_cluster>> embedded_cluster::start(
    int ps_tasks, int worker_tasks, const cpu_device_options& cpu,
    const transport_security& security) {
  CAFLOW_ASSIGN_OR_RETURN(auto ports, free_loopback_ports(ps_tasks + worker_tasks));
  std::map<std::string, std::vector<std::string>> jobs;
  for (int i = 0; i < ps_tasks + worker_tasks; ++i)
    jobs[i < ps_tasks ? "ps" : "worker"].push_back("127.0.0.1:" + std::to_string(ports[i]));
  CAFLOW_ASSIGN_OR_RETURN(cluster_spec spec, cluster_spec::from_jobs(jobs));

  // Each server waits for all the others, so they start together.
  const int n = ps_tasks + worker_tasks;
  std::vector<status_or<std::unique_ptr<server>>> started;
  for (int i = 0; i < n; ++i) started.emplace_back(errors::internal("not started"));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      server_options opts{.cluster = spec,
                          .job = i < ps_tasks ? "ps" : "worker",
                          .task = i < ps_tasks ? i : i - ps_tasks,
                          .cpu = cpu,
                          .security = security};
      started[i] = server::start(opts);
    });
  for (auto& t : threads) t.join();
  auto c = std::unique_ptr<embedded_cluster>(new embedded_cluster);
  c->spec_ = spec;
  c->ps_tasks_ = ps_tasks;
  for (auto& s : started) {
    if (!s.ok()) return s.get_status();
    c->servers_.push_back(std::move(*s));
  }
  return c;
}

embedded_cluster::~embedded_cluster() {
  // Workers first: a ps that left before them would be reported lost by every worker.
  while (!servers_.empty()) {
    servers_.back()->stop();
    servers_.pop_back();
  }
}

std::string embedded_cluster::worker_target(int task) const {
  return servers_[ps_tasks_ + task]->target();
}

}  // namespace caflow::train_app
