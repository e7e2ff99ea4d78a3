#pragma once
// The worker role of one task: it keeps the partitions masters register, runs them step after
// step on its device, and receives the tensors of cut edges through one rendezvous actor per
// edge (actors/rendezvous_actor.hpp). The message sequence is in net/protocol.hpp.
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
//   cleanup     forgets the step once its runs here are over
//   dereg       drops a graph (once its running steps are over)
//
// What the worker relies on from its master:
//   - step ids are unique among all masters that use this worker, and never reused (a run of
//     one of the last 4096 steps cleaned up here is refused): TensorFlow draws them at random;
//   - run_graph(step) reaches a worker before abort(step) and cleanup(step) do (one sender's
//     messages arrive in order), and cleanup follows every step, failed or not: values held
//     for a step, and the per-edge bound, are released only by cleanup.
//
// Kernels never run on actor threads: a step starts on the device's threads and a pushed value
// continues a step there too.
#include <cstdint>
#include <string>

#include <caf/fwd.hpp>

#include "devices/cpu_device.hpp"
#include "net/protocol.hpp"

namespace caflow {

struct worker_options {
  std::string job = "localhost";
  int task = 0;
  cpu_device_options cpu{};
  // A rendezvous actor refuses a step's value (the step fails with resource_exhausted naming
  // the edge) while it holds values of this many other steps not yet cleaned up.
  int max_pending_steps_per_edge = 8;
  // Tells this life of the task from earlier ones in rendezvous keys. 0: a random non-zero
  // number chosen at spawn. A master that partitions before it has seen a registration reply
  // may use 0 for the task's _Sends; a non-zero one that differs is refused (a restarted task).
  uint64_t incarnation = 0;
  // Where the worker listens for big cut-edge tensors from other processes (its bulk channel,
  // actors/bulk_receiver.hpp): the task's host. Empty: no bulk channel, everything goes through
  // CAF (the setting under TLS, which the plain-TCP channel would bypass).
  std::string bulk_host{};
};

// Spawns the worker of task `opts.task` of job `opts.job`, with one CPU device named
// full_device_name(job, task, "CPU", 0). Send it an exit message to stop it: running steps are
// cancelled and waited for, pending requests get an unavailable error.
worker_actor spawn_worker(caf::actor_system& sys, const worker_options& opts);

}  // namespace caflow
