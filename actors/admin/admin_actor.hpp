#pragma once
// The admin role of a task: what caflow-console talks to. It holds the task's master and
// worker and finds every peer's admin by name on the peer's port, so one connection to any task
// answers for the whole cluster:
//
//   cluster      every task: address, alive or lost, uptime (a peer is lost when its admin
//                cannot be found or does not answer within `peer_timeout`)
//   devices      memory in use and peak per device          (workers)
//   sessions     sessions with graph size and steps          (masters)
//   graphs       cached partitions per session: task, device, node count   (masters)
//   steps        p50/p99 step latency and rate per session   (masters)
//   pending      _Recvs waiting now: step, edge, age         (workers)
//   vars         variables: dtype, shape, L2 norm            (workers)
//   var NAME     a variable's values, truncated              (workers)
//   trace on|off [TASK], trace collect                       (workers)
//   abort STEP   aborts a step on the master that runs it    (masters)
//   summaries    the last scalar of each tag per session, as its client reported (masters)
//   logdir       where each session's client writes TensorBoard events         (masters)
//
// The admin never blocks: finding a peer runs on a resolver actor of its own thread, and every
// question to a peer carries a timeout. Peers' trace events are shifted onto this task's clock
// with the midpoint of the question's round trip (Cristian's method).
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "net/admin_protocol.hpp"
#include "net/loop/blocking_worker.hpp"
#include "net/protocol.hpp"

namespace caflow {

struct admin_options {
  std::string task;     // "/job:J/replica:0/task:T"
  std::string address;  // where this task listens, "host:port"
  // Every other task its device filters admit, "host:port" by task name: the ones a cluster-wide
  // question goes to from here.
  std::map<std::string, std::string> peers{};
  // The cluster's tasks its filters leave out: never contacted from here, only named (the
  // "tasks" question), so that a console asks them itself.
  std::map<std::string, std::string> outside{};
  master_actor master{};
  worker_actor worker{};
  std::chrono::milliseconds peer_timeout{2000};
  // Where its resolver looks peers up (spawn_resolver); null: a thread of its own.
  std::shared_ptr<blocking_worker> lookups{};
};

admin_actor spawn_admin(caf::actor_system& sys, admin_options opts);

}  // namespace caflow
