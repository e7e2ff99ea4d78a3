#include "apps/train/embedded_cluster.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <thread>

#include "net/loopback_ports.hpp"

namespace caflow::train_app {
namespace {

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

// caflow-server beside this executable (the build tree and an install keep them together).
status_or<std::string> server_binary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return errors::unavailable("cannot find this executable: ", ec.message());
  const auto server = self.parent_path() / "caflow-server";
  if (!std::filesystem::exists(server))
    return errors::not_found("embedded task processes need caflow-server next to ", self.string(),
                             " (looked for ", server.string(), ")");
  return server.string();
}

}  // namespace

status_or<std::unique_ptr<embedded_cluster>> embedded_cluster::start(const embedded_options& o) {
  const int n = o.ps_tasks + o.worker_tasks;
  CAFLOW_ASSIGN_OR_RETURN(auto ports, free_loopback_ports(n));
  std::map<std::string, std::vector<std::string>> jobs;
  for (int i = 0; i < n; ++i)
    jobs[i < o.ps_tasks ? "ps" : "worker"].push_back("127.0.0.1:" + std::to_string(ports[i]));
  auto c = std::unique_ptr<embedded_cluster>(new embedded_cluster);
  CAFLOW_ASSIGN_OR_RETURN(c->spec_, cluster_spec::from_jobs(jobs));
  CAFLOW_RETURN_IF_ERROR(o.processes ? c->start_processes(o) : c->start_threads(o));
  return c;
}

status embedded_cluster::start_threads(const embedded_options& o) {
  // Each server waits for all the others, so they start together.
  const auto& tasks = spec_.tasks();
  std::vector<status_or<std::unique_ptr<server>>> started;
  for (size_t i = 0; i < tasks.size(); ++i) started.emplace_back(errors::internal("not started"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tasks.size(); ++i)
    threads.emplace_back([&, i] {
      const bool gpus = o.use_gpus && tasks[i].job == "worker";
      gpu_options gpu = o.gpu;
      gpu.allow_growth = true;  // tasks of one process share each GPU
      started[i] = server::start({.cluster = spec_,
                                  .job = tasks[i].job,
                                  .task = tasks[i].task,
                                  .cpu = o.cpu,
                                  .gpu = gpu,
                                  .device_count = {{device_gpu, gpus ? o.gpus_per_worker : 0}},
                                  // One process: only load can silence a task (twenty tasks
                                  // beside other work on two cores missed 1 s of heartbeats).
                                  .failures = failure_detection::patient(),
                                  .step_timeout = o.step_timeout,
                                  .security = o.security,
                                  .shm_variables = o.shm_variables,
                                  .same_host_rings = o.same_host_rings,
                                  .file_roots = o.file_roots,
                                  // The trim is the process's: one task's keeper does it.
                                  .heap_trim_interval = i == 0
                                                            ? server_options{}.heap_trim_interval
                                                            : std::chrono::milliseconds{0}});
    });
  for (auto& t : threads) t.join();
  for (auto& s : started) {
    if (!s.ok()) return s.get_status();
    servers_.push_back(std::move(*s));
  }
  // ps tasks first, as worker_target expects.
  std::stable_partition(servers_.begin(), servers_.end(),
                        [](const auto& s) { return s->task_name().starts_with("/job:ps/"); });
  return {};
}

status embedded_cluster::start_processes(const embedded_options& o) {
  CAFLOW_ASSIGN_OR_RETURN(std::string binary, server_binary());
  supervisor_ = std::make_unique<task_supervisor>(supervisor_options{.max_restarts = o.max_restarts});
  std::vector<int> ports;
  for (const auto& t : spec_.tasks()) {
    std::vector<std::string> argv{binary, "--cluster", spec_.to_json(), "--job", t.job, "--task",
                                  std::to_string(t.task)};
    if (o.cpu.intra_op_threads > 0)
      argv.insert(argv.end(), {"--intra-op-threads", std::to_string(o.cpu.intra_op_threads)});
    if (o.cpu.inter_op_threads > 0)
      argv.insert(argv.end(), {"--inter-op-threads", std::to_string(o.cpu.inter_op_threads)});
    if (!(o.use_gpus && t.job == "worker")) {
      argv.insert(argv.end(), {"--num-gpus", "0"});
    } else {
      argv.insert(argv.end(), {"--num-gpus", std::to_string(o.gpus_per_worker)});
      if (!o.gpu.virtual_device_memory_mb.empty())
        argv.insert(argv.end(), {"--gpu-virtual-devices",
                                 virtual_devices_flag(o.gpu.virtual_device_memory_mb)});
      if (o.gpu.per_process_gpu_memory_fraction > 0)
        argv.insert(argv.end(), {"--gpu-memory-fraction",
                                 std::to_string(o.gpu.per_process_gpu_memory_fraction)});
      if (!o.gpu.visible_device_list.empty())
        argv.insert(argv.end(), {"--gpu-visible-devices", o.gpu.visible_device_list});
      argv.insert(argv.end(), {"--gpu-allow-growth", "1"});  // the workers share each GPU
      if (!o.gpu.capture_graphs) argv.insert(argv.end(), {"--gpu-graphs", "0"});
    }
    if (o.security.tls())
      argv.insert(argv.end(), {"--tls-cert", o.security.cert, "--tls-key", o.security.key,
                               "--tls-ca", o.security.ca});
    argv.insert(argv.end(), {"--cluster-id", o.security.cluster_id});
    // The caller chose the cluster's security (a secret id, TLS, or the well-known id on
    // purpose): its servers must not refuse what it chose.
    if (!o.security.tls() && o.security.cluster_id == transport_security{}.cluster_id)
      argv.push_back("--insecure");
    for (const std::string& root : o.file_roots) argv.insert(argv.end(), {"--checkpoint-root", root});
    if (o.shm_variables) argv.insert(argv.end(), {"--shm-variables", "1"});
    if (!o.log_level.empty()) argv.insert(argv.end(), {"--log-level", o.log_level});
    argv.insert(argv.end(), {"--step-timeout-ms", std::to_string(o.step_timeout.count())});
    const std::string name = "/job:" + t.job + "/replica:0/task:" + std::to_string(t.task);
    CAFLOW_RETURN_IF_ERROR(supervisor_->start(name, std::move(argv)));
    CAFLOW_ASSIGN_OR_RETURN(host_port hp, split_host_port(t.address));
    ports.push_back(hp.port);
  }
  // Started once they listen; sessions retry their connection while the tasks find each other.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (size_t i = 0; i < ports.size(); ++i)
    while (!accepts_connections(ports[i])) {
      if (std::chrono::steady_clock::now() > deadline)
        return errors::deadline_exceeded("embedded task on 127.0.0.1:", ports[i],
                                         " did not start within 60 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  return {};
}

embedded_cluster::~embedded_cluster() {
  if (supervisor_) supervisor_->stop();
  // Workers first: a ps that left before them would be reported lost by every worker.
  while (!servers_.empty()) {
    servers_.back()->stop();
    servers_.pop_back();
  }
}

std::string embedded_cluster::worker_target(int task) const {
  auto address = spec_.task_address("worker", task);
  return address.ok() ? "caflow://" + *address : std::string();
}

}  // namespace caflow::train_app
