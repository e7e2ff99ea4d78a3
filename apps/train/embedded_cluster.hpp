#pragma once
// A whole cluster inside this process: every task is its own server (its own actor system on
// its own 127.0.0.1 port), so steps cross the middleman exactly as between machines.
#include <memory>
#include <string>
#include <vector>

#include "actors/server.hpp"

namespace caflow::train_app {

class embedded_cluster {
 public:
  // Jobs "ps" (ps_tasks) and "worker" (worker_tasks) on free loopback ports.
  static status_or<std::unique_ptr<embedded_cluster>> start(int ps_tasks, int worker_tasks,
                                                            const cpu_device_options& cpu,
                                                            const transport_security& security = {});
  ~embedded_cluster();

  const cluster_spec& spec() const { return spec_; }
  // The session target of worker `task`'s master.
  std::string worker_target(int task) const;

 private:
  cluster_spec spec_;
  std::vector<std::unique_ptr<server>> servers_;  // ps tasks first, then workers
  int ps_tasks_ = 0;
};

}  // namespace caflow::train_app
