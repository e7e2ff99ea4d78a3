#pragma once
// The master role of a task. Per session it keeps the validated graph; per run signature
// (feeds, fetches, targets) it prunes, places, partitions (a _Send/_Recv pair on every cut
// edge), registers the partitions with their workers once, wires each _Send to the rendezvous
// actor of its edge, and caches the result. From then on a step is one run_graph per worker.
//
// A step fails as a whole: the first error (a kernel's, a lost worker's, a timeout) is the
// root cause; every other worker is told to abort the step, and the client gets that root
// cause naming node, op, device and task. Workers are monitored: a lost task fails the steps
// that wait on it at once instead of at their timeout.
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>

#include "net/loop/blocking_worker.hpp"
#include "net/middleman.hpp"
#include "net/protocol.hpp"

namespace caflow {

struct master_options {
  std::string job = "localhost";  // the master's own task: where unplaced nodes go
  int task = 0;
  // Every task's worker (the master's own included), keyed "/job:J/replica:0/task:T".
  std::map<std::string, worker_actor> workers{};
  std::chrono::milliseconds step_timeout{scaled(std::chrono::milliseconds{60000})};
  std::chrono::milliseconds rpc_timeout{scaled(std::chrono::milliseconds{10000})};
  // For tasks in other processes: where they listen ("host:port" by task name) and who finds
  // them again after they were lost. Without a resolver a lost task stays lost.
  std::map<std::string, std::string> addresses{};
  resolver_actor resolver{};
  // Where planning runs, off the network loop. A server passes its own, which outlives the
  // master and is joined before its actor system goes; without one the master makes its own.
  std::shared_ptr<blocking_worker> planning{};
};

master_actor spawn_master(caf::actor_system& sys, master_options opts);

}  // namespace caflow
