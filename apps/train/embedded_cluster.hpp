#pragma once
// A whole cluster on this machine for caflow-train: every task is its own server on its own
// 127.0.0.1 port, so steps cross the middleman exactly as between machines. The tasks are
// either servers inside this process (each with its own actor system) or caflow-server child
// processes, which a supervisor restarts when one is lost.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/server/server.hpp"
#include "apps/train/task_supervisor.hpp"

namespace caflow::train_app {

struct embedded_options {
  int ps_tasks = 1;
  int worker_tasks = 2;
  cpu_device_options cpu{};
  // The workers' GPUs: `use_gpus` false makes none (ps tasks never make any: variables live on
  // their CPUs). Tasks in this process share each GPU, so they take memory as they need it.
  bool use_gpus = false;
  int gpus_per_worker = 1;  // each worker's GPU devices (virtual ones count)
  // `= gpu_options()`, not `{}`: GCC 12 warns falsely that its string may be uninitialized.
  gpu_options gpu = gpu_options();
  transport_security security{};
  // Tasks in this process talk through shared memory rings (server_options::same_host_rings).
  bool same_host_rings = true;
  // Every task keeps its variables in its shared memory segment, so a ps hands its workers
  // the variables' own bytes (server_options::shm_variables).
  bool shm_variables = false;
  // Where the tasks' file ops may go: the run's checkpoint directory (server_options).
  std::vector<std::string> file_roots{};
  // Tasks as caflow-server processes (found next to this executable), restarted at most
  // `max_restarts` times each when they exit unasked.
  bool processes = false;
  int max_restarts = 3;
  std::string log_level{};  // processes: the servers' --log-level, empty for their default
  // How long a step may run before its master fails it (server_options::step_timeout).
  std::chrono::milliseconds step_timeout{60000};
};

class embedded_cluster {
 public:
  // Jobs "ps" and "worker" on free loopback ports; returns once every task serves.
  static status_or<std::unique_ptr<embedded_cluster>> start(const embedded_options& opts);
  ~embedded_cluster();

  const cluster_spec& spec() const { return spec_; }
  // The session target of worker `task`'s master.
  std::string worker_target(int task) const;

 private:
  status start_threads(const embedded_options& opts);
  status start_processes(const embedded_options& opts);

  cluster_spec spec_;
  std::vector<std::unique_ptr<server>> servers_;  // threads: ps tasks first, then workers
  std::unique_ptr<task_supervisor> supervisor_;   // processes
};

}  // namespace caflow::train_app
