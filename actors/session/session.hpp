#pragma once
// The client's handle for running graphs, like TensorFlow's (Client)Session:
//
//   auto root = scope::new_root();
//   auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
//   auto y = ops::mul(root, x, ops::constant(root, 2.0f));
//   session sess(root);
//   auto out = sess.run({{x, tensor::scalar(21.0f)}}, {y});   // out->at(0) == 42
//
// A session bound to a scope follows it: nodes added to the scope later are sent to the
// session on the next run. Each distinct (feeds, fetches, targets) signature is pruned,
// validated and turned into an executor once, then cached; variables keep their values across
// runs. `run` is thread-safe.
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <map>

#include "devices/cpu_device.hpp"
#include "devices/gpu_devices.hpp"
#include "graph/client/scope.hpp"
#include "graph/client/step_runner.hpp"
#include "graph/ir/passes/pass.hpp"
#include "graph/platform/busy_wait.hpp"
#include "net/step_reports.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

struct session_options {
  // "local" runs in this process; "caflow://host:port" runs on the cluster whose task listens
  // there (its master prunes, places and partitions across the cluster's tasks).
  std::string target = "local";
  // How long to keep trying to reach a remote target's master.
  std::chrono::milliseconds connect_timeout{10000};
  cpu_device_options cpu{};
  // The GPUs a "local" session uses (TF's GPUOptions) and how many devices of each type it
  // makes (TF's device_count; {"GPU", 0}: none). A "local" session with a GPU places, partitions
  // and runs its graphs through a one-task cluster in this process, as a remote one does.
  gpu_options gpu = gpu_options();
  std::map<std::string, int> device_count{};
  // A step still running after this long is cancelled and reported; 0 waits forever.
  std::chrono::milliseconds operation_timeout{0};
  // Common-subexpression elimination and constant folding, per run signature (on a cluster:
  // per cached partition).
  optimizer_options optimizer{};
  // On a cluster: when a node's requested device (or device type) is missing or has no kernel
  // for it, place it on another device of the same task instead of failing (TF's
  // allow_soft_placement). A local session without a GPU runs everything on its one CPU device.
  bool allow_soft_placement = false;
  // Print, once per run signature, a table of where every node runs (node, op, device) to
  // stderr (TF's log_device_placement, as one table instead of a line per node).
  bool log_device_placement = false;
  // A remote target's TLS certificates and cluster id (the cluster's, or it refuses us).
  transport_security security{};
  // On a cluster: tasks ("/job:worker/task:1") whose loss the session's steps cannot survive
  // although their own nodes may not run there, e.g. synchronous replicas, which wait on every
  // worker's gradients through shared queues. When one is lost, the master fails the session's
  // running steps at once with an error naming it (instead of leaving them blocked until the
  // operation timeout), and new steps fail until the task is back.
  std::vector<std::string> required_tasks = {};
  // On a cluster: the devices the session may use, as TF's ConfigProto.device_filters
  // ("/job:ps", "/job:worker/task:1"; net/device_filters.hpp). Its master connects only to the
  // tasks they admit (besides its own), lists only their devices, and fails a step whose graph
  // asks for a device outside them, naming the node and the filters. Empty: every task.
  std::vector<std::string> device_filters = {};
  // On a cluster: how long the calling thread polls for a step's answer before it sleeps
  // (graph/platform/busy_wait.hpp); 0 sleeps at once.
  std::chrono::microseconds busy_poll = default_busy_poll;
};

struct session_stats {
  int64_t steps = 0;
  int64_t cached_signatures = 0;
  int64_t graph_nodes = 0;
  // What the optimizer did, summed over every prepared run signature.
  int64_t nodes_removed = 0;
  int64_t nodes_folded = 0;
  std::string last_optimization;  // e.g. "cse: 12 -> 9 nodes (3 removed); ..."
};

// TensorFlow's RunOptions and RunMetadata, as far as caflow records them: a traced step reports
// every node each partition ran (tf::serialized_run_metadata, graph/tf/step_stats.hpp, turns
// them into TF's StepStats).
struct step_options {
  bool trace = false;
};
struct step_metadata {
  std::vector<trace_event> nodes;  // times on the system clock of the task that ran each
};

class session final : public step_runner {
 public:
  using named_feed_list = std::vector<std::pair<std::string, tensor>>;

  explicit session(const session_options& opts = {});
  explicit session(const scope& s, const session_options& opts = {});
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  // Adds nodes to the session's graph. The whole graph is validated (unknown ops, attrs,
  // input counts, dtypes, cycles, shapes) and nothing is added when it fails.
  status extend(const graph_def& more);

  status_or<std::vector<tensor>> run(const feed_list& feeds, const std::vector<output>& fetches,
                                     const std::vector<operation>& targets = {}) override;
  status_or<std::vector<tensor>> run(const std::vector<output>& fetches) { return run({}, fetches); }
  // With options: `metadata` (when given) receives what the step recorded.
  status_or<std::vector<tensor>> run(const step_options& options, const feed_list& feeds,
                                     const std::vector<output>& fetches,
                                     const std::vector<operation>& targets, step_metadata* metadata);
  // By name: feeds and fetches are "node" or "node:port", targets are node names.
  status_or<std::vector<tensor>> run_named(const named_feed_list& feeds,
                                           const std::vector<std::string>& fetches,
                                           const std::vector<std::string>& targets = {});

  device& cpu();
  session_stats stats() const;

  // Tells the session's master what its client last wrote to an event file, so that
  // caflow-console's `summaries` and `logdir` show it (net/admin_protocol.hpp). Sent without
  // waiting; a session without a master (a plain "local" one) has no console and sends nothing.
  status report_summaries(summary_report report);

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace caflow
