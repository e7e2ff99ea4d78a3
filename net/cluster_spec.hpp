#pragma once
// The cluster a distributed job runs on, as TensorFlow's ClusterSpec: job name -> ordered list
// of tasks, each task one "host:port". Every task holds the same spec; task i of job j serves
// the devices "/job:j/replica:0/task:i/device:...".
//
// Accepted inputs (all validated the same way, errors name the job, task or address at fault):
//   JSON                {"ps": ["127.0.0.1:2222"], "worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}
//   compact flag form   ps=127.0.0.1:2222;worker=10.0.0.1:2222,10.0.0.2:2222
//                       (jobs separated by ';', a job's tasks by ',' in task order; spaces around
//                       either separator are ignored)
//   TF_CONFIG           {"cluster": {...JSON above...}, "task": {"type": "worker", "index": 1}}
// A valid spec has at least one job, every job name matches [a-z][a-z0-9_]*, every job has at
// least one task, every address is "host:port" or "[ipv6]:port" with a port in 1..65535, and no
// address is used by two tasks.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/core/device_name.hpp"
#include "graph/core/status.hpp"

namespace caflow {

struct host_port {
  std::string host;  // an IPv6 host without its brackets: "::1"
  uint16_t port = 0;
};

// Splits "host:port" or "[ipv6]:port". Errors quote the address and say what is wrong: no port,
// a port that is not a number or not in 1..65535, an empty or malformed host.
status_or<host_port> split_host_port(std::string_view address);
// Whether `host` names this machine's loopback: 127.0.0.0/8, ::1 (bracketed or not), localhost.
bool is_loopback_host(std::string_view host);

class cluster_spec {
 public:
  struct task_entry {
    std::string job;
    int task = 0;
    std::string address;
    bool operator==(const task_entry&) const = default;
  };

  // A cluster with no jobs, where every lookup fails; the factories never return one. It exists
  // so that holders (actor states) can be default constructed before they are configured.
  cluster_spec() = default;

  // Validates and adopts job name -> task addresses.
  static status_or<cluster_spec> from_jobs(std::map<std::string, std::vector<std::string>> jobs);
  // {"job": ["host:port", ...], ...}. A key given twice is an error, not "last one wins".
  static status_or<cluster_spec> from_json(std::string_view json);
  // A file holding the JSON form.
  static status_or<cluster_spec> from_file(const std::string& path);
  // The JSON form when the text starts with '{', the compact form otherwise.
  static status_or<cluster_spec> from_flag(std::string_view flag);

  // Job names in ascending order.
  std::vector<std::string> jobs() const;
  bool has_job(std::string_view job) const;
  // 0 for a job that is not in the cluster.
  int num_tasks(std::string_view job) const;
  // NOT_FOUND naming the job, or the task and how many tasks the job has.
  status_or<std::string> task_address(std::string_view job, int task) const;
  // Every task, by job name then task index.
  std::vector<task_entry> tasks() const;

  // JSON form with jobs in ascending order; from_json(to_json()) == *this.
  std::string to_json() const;
  // Compact form; from_flag(to_flag()) == *this.
  std::string to_flag() const;

  // OK when the job and task a device spec names exist in this cluster (absent fields are not
  // checked). Every task is replica 0, so any other replica is rejected too.
  status validate_device(const device_spec& spec) const;

  bool operator==(const cluster_spec&) const = default;

 private:
  explicit cluster_spec(std::map<std::string, std::vector<std::string>, std::less<>> jobs)
      : jobs_(std::move(jobs)) {}

  std::map<std::string, std::vector<std::string>, std::less<>> jobs_;
};

// What TF_CONFIG tells one process: the cluster, and which task of it this process is.
struct task_config {
  cluster_spec cluster;
  std::string job;
  int task = 0;

  // The task's device prefix: "/job:worker/replica:0/task:1".
  std::string task_name() const;

  // {"cluster": {...}, "task": {"type": "worker", "index": 1}}. "index" defaults to 0, as in
  // TensorFlow; other top-level keys ("environment", "rpc_layer") are ignored. The task type must
  // be a job of the cluster and the index one of its tasks.
  static status_or<task_config> from_tf_config(std::string_view json);
  // The same, read from the TF_CONFIG environment variable: NOT_FOUND when unset or empty.
  static status_or<task_config> from_tf_config_env();
};

}  // namespace caflow
