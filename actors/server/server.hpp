#pragma once
// One task of a cluster: an actor system hosting the task's worker and master, named on the
// task's port so peers and clients find them. `start` opens the port and spawns the worker, the
// master and the admin; it contacts no other task (the master does when a session needs one).
//
//   auto cluster = cluster_spec::from_flag("ps=127.0.0.1:2222;worker=127.0.0.1:2223");
//   auto srv = server::start({.cluster = *cluster, .job = "ps", .task = 0});
//   (*srv)->wait();   // until stop() or a signal handler calls it
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "devices/cpu_device.hpp"
#include "devices/gpu_devices.hpp"
#include "net/cluster_spec.hpp"
#include "net/loop/loop_scheduler.hpp"
#include "net/middleman.hpp"
#include "net/protocol.hpp"
#include "actors/server/startup_progress.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

struct server_options {
  cluster_spec cluster;
  std::string job;
  int task = 0;
  cpu_device_options cpu{};
  // The task's GPUs (TF's GPUOptions) and how many devices of each type it makes (TF's
  // device_count, {"GPU", 0}: none); see devices/device_factory.hpp.
  // `= gpu_options()`, not `{}`: GCC 12 warns falsely that its string may be uninitialized.
  gpu_options gpu = gpu_options();
  std::map<std::string, int> device_count{};
  failure_detection failures{};
  // How long a new session waits for a task it needs that does not serve yet. Peers are
  // contacted lazily (actors/master/master_peers.cpp): start-up waits for none.
  std::chrono::milliseconds peer_patience{30000};
  // TF's ConfigProto.device_filters for the task ("/job:ps", "/job:worker/task:3";
  // net/device_filters.hpp): it never connects to a task they leave out, and its sessions never
  // place a node there. Empty: every task. They must admit the task itself.
  std::vector<std::string> device_filters{};
  // Where start-up is, for a caller that watches it (caflow-server's deadline and signals).
  std::shared_ptr<startup_progress> progress = std::make_shared<startup_progress>();
  std::chrono::milliseconds step_timeout{scaled(std::chrono::milliseconds{60000})};
  // Where the task's actors run. 0: on the network event loop, the thread that also reads and
  // writes the task's sockets (net/loop/loop_scheduler.hpp; the fewest thread hand-overs per step).
  // N > 0: a pool of N threads (CAF's work-sharing scheduler).
  int scheduler_threads = 0;
  // With actors on the network loop: how long the loop keeps polling its sockets instead of
  // sleeping after an actor last ran (net/loop/loop_scheduler.hpp); 0 turns polling off.
  std::chrono::microseconds busy_poll = default_busy_poll;
  // TLS and the cluster id; every task and client of the cluster needs the same CA and id.
  transport_security security{};
  // Big cut-edge tensors to other tasks over a TCP connection of their own, straight from and
  // into tensor buffers (net/bulk/bulk_receiver.hpp); off under TLS, which it would bypass.
  bool bulk_channel = true;
  // Cut-edge tensors to tasks on this host through shared memory (net/shm/shm_sender.hpp): the
  // size of the segment this task makes per such receiving task (virtual: pages are allocated
  // where tensors are written). Only tasks that prove a per-task secret and run as this uid
  // get one. 0: off, every value goes through TCP.
  uint64_t shm_segment_bytes = uint64_t{256} << 20;
  // Keeps this task's variables in its shared memory segment, so a ps hands its workers on
  // this host the variables' own bytes with no copy on either side (docs/shm_transport.md,
  // "Variables in the export segment"). Off by default: on the 2-core test host the workers'
  // reads make the ps's in-place updates slower by more than the copies cost (sync training
  // about 10% slower, bench train_sync_shm_variables); it saves the copies' CPU and memory
  // traffic where cores are plenty.
  bool shm_variables = false;
  // Every message to and from tasks on this host through shared memory rings instead of
  // loopback TCP (net/ring/ring_link.hpp), where both ends take rings; off under TLS. false: TCP.
  bool same_host_rings = true;
  // The directories below which the task's file ops (SaveV2, RestoreV2) may read and write
  // (caflow-server --checkpoint-root); none: every file op is refused. A graph comes from
  // whoever reached the port, so a server never touches files its own options do not allow
  // (devices/file_access.hpp). create_local_server keeps cpu.files (anywhere by default).
  std::vector<std::string> file_roots{};
  // How often the task hands free heap pages back to the OS (actors/server/heap_keeper.hpp);
  // 0: never.
  std::chrono::milliseconds heap_trim_interval{30000};
};

class server;
// A single-task cluster ("localhost", one task on a free port of 127.0.0.1) in this process.
status_or<std::unique_ptr<server>> create_local_server(const cpu_device_options& cpu = {});
// The same, with the task's other devices (GPUs) made from `gpu` and `device_count`, and its
// master failing a step that runs past `step_timeout` (server_options::step_timeout).
status_or<std::unique_ptr<server>> create_local_server(
    const cpu_device_options& cpu, const gpu_options& gpu,
    const std::map<std::string, int>& device_count,
    std::chrono::milliseconds step_timeout = server_options().step_timeout);

class server {
 public:
  // Errors name the task and what failed (bad job/task, unreadable TLS files, port in use, a
  // peer not reachable).
  static status_or<std::unique_ptr<server>> start(const server_options& opts);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  // "caflow://host:port": the session target of this task's master.
  std::string target() const;
  const std::string& task_name() const;  // "/job:J/replica:0/task:T"
  uint16_t port() const;
  master_actor master() const;
  worker_actor worker() const;

  // Stops serving; idempotent and safe from any thread (e.g. after a signal).
  void stop();
  // Blocks until stop().
  void wait();

 private:
  friend status_or<std::unique_ptr<server>> create_local_server(
      const cpu_device_options& cpu, const gpu_options& gpu,
      const std::map<std::string, int>& device_count, std::chrono::milliseconds step_timeout);
  struct impl;
  explicit server(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace caflow
