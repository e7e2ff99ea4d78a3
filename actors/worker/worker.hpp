#pragma once
// The worker role of one task: it keeps the partitions masters register, runs them step after
// step on its device, and receives the tensors of cut edges through one rendezvous actor per
// edge (actors/rendezvous/rendezvous_actor.hpp). The message sequence is in net/protocol.hpp.
//
//   reg_graph   the partition is validated (every node on this task's device), compiled into
//               an executor (stateful kernels shared per session) and given a handle; the
//               reply names the rendezvous actor of each _Recv key and this task's incarnation
//   bind        where each _Send's tensor goes; every _Send key of the graph, and no other
//   run_graph   runs the graph for a step with the feeds as its call frame; the reply carries
//               the fetches (uninitialized where the graph has no _Retval). It comes later,
//               from a promise: the actor never waits for a step
//   abort       cancels the step here, waking its _Recvs with the given root cause; later work
//               of the step is refused with it
//   cleanup     forgets the step once its runs here are over; only a step that failed needs
//               it: once as many runs of a step as its requests' runs_here have succeeded
//               here, the worker forgets the step by itself
//   dereg       drops a graph (once its running steps are over)
//
// What the worker relies on from its master:
//   - step ids are unique among all masters that use this worker, and never reused (a run of
//     one of the last 4096 steps cleaned up here is refused): TensorFlow draws them at random;
//   - run_graph(step) reaches a worker before abort(step) and cleanup(step) do (one sender's
//     messages arrive in order), and cleanup follows every step that did not succeed on every
//     worker it ran on (or whose requests left runs_here 0): values held for such a step are
//     released by cleanup, or dropped after stale_value_after when the edge needs room.
//
// A step starts on the worker's thread and a pushed value continues it on the rendezvous
// actor's, with light nodes only (actors/executor/executor.hpp); every other kernel runs on the
// device's threads.
#include <chrono>
#include <cstdint>
#include <string>

#include <caf/fwd.hpp>

#include <map>

#include "devices/cpu_device.hpp"
#include "devices/gpu_devices.hpp"
#include "net/device_filters.hpp"
#include "net/protocol.hpp"

namespace caflow {

struct worker_options {
  std::string job = "localhost";
  int task = 0;
  cpu_device_options cpu{};
  // The task's other devices, from the device registry (devices/device_factory.hpp): every
  // GPU the process sees unless device_count says {"GPU", 0}.
  // `= gpu_options()`, not `{}`: GCC 12 warns falsely that its string may be uninitialized.
  gpu_options gpu = gpu_options();
  std::map<std::string, int> device_count{};
  // A rendezvous actor refuses a step's value (the step fails with resource_exhausted naming
  // the edge) while it holds values of this many other steps not yet cleaned up.
  int max_pending_steps_per_edge = 8;
  // A value its edge held this long without its step ending or being cleaned up here is
  // dropped when the edge needs room (actors/rendezvous/rendezvous_actor.hpp). A server makes it twice
  // its step timeout.
  std::chrono::milliseconds stale_value_after = std::chrono::minutes(2);
  // Tells this life of the task from earlier ones in rendezvous keys. 0: a random non-zero
  // number chosen at spawn. A master that partitions before it has seen a registration reply
  // may use 0 for the task's _Sends; a non-zero one that differs is refused (a restarted task).
  uint64_t incarnation = 0;
  // Where the worker listens for big cut-edge tensors from other processes (its bulk channel,
  // net/bulk/bulk_receiver.hpp): the task's host. Empty: no bulk channel, everything goes through
  // CAF (the setting under TLS, which the plain-TCP channel would bypass).
  std::string bulk_host{};
  // The size of the shared memory segment this worker makes for each task on its host that it
  // sends to (net/shm/shm_sender.hpp); pages are only allocated where tensors are written.
  // 0: no shared memory links, every value goes through TCP.
  uint64_t shm_segment_bytes = 0;
  // Its CPU device keeps variables in that segment (server_options::shm_variables).
  bool shm_variables = false;
  // The tasks it may connect to when a master asks it to meet one (server_options).
  device_filters filters{};
  // How long such a connection may take.
  std::chrono::milliseconds meet_timeout{5000};
};

// Spawns the worker of task `opts.task` of job `opts.job`, with its CPU device named
// full_device_name(job, task, "CPU", 0) and the other devices the registry makes for it, each
// owned by its device actor (actors/device/device_actor.hpp), which runs the partitions placed on it. Send it an exit message to stop it: running steps are
// cancelled and waited for, pending requests get an unavailable error.
worker_actor spawn_worker(caf::actor_system& sys, const worker_options& opts);

}  // namespace caflow
