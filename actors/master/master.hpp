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
//
// The master connects to other tasks lazily: a new session contacts the tasks its device
// filters admit (all of them without filters) and lists their devices; before partitions that
// exchange values are bound, it has the earlier task of each such pair connect to the later
// one (the pair's one connection: docs/caf_0.17_notes.md, "Two nodes connecting to each other").
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>

#include "net/device_filters.hpp"
#include "net/loop/blocking_worker.hpp"
#include "net/middleman.hpp"
#include "net/protocol.hpp"

namespace caflow {

struct master_options {
  std::string job = "localhost";  // the master's own task: where unplaced nodes go
  int task = 0;
  // The workers known from the start (the master's own, and those of an in-process cluster),
  // keyed "/job:J/replica:0/task:T"; the others are added as sessions contact them.
  std::map<std::string, worker_actor> workers{};
  std::chrono::milliseconds step_timeout{scaled(std::chrono::milliseconds{60000})};
  std::chrono::milliseconds rpc_timeout{scaled(std::chrono::milliseconds{10000})};
  // For tasks in other processes: where they listen ("host:port" by task name) and who finds
  // them: the master connects to a task when a session first needs it (lazily, as TF's master
  // does), and looks a lost one up again. Without a resolver only `workers` are known, and a
  // lost task stays lost.
  std::map<std::string, std::string> addresses{};
  resolver_actor resolver{};
  // How long a new session waits for a task it needs that is not serving yet (a cluster that
  // is still starting).
  std::chrono::milliseconds peer_patience{scaled(std::chrono::milliseconds{30000})};
  // The task's device filters (net/device_filters.hpp): `addresses` holds only the tasks they
  // admit; every session's own filters narrow them further.
  device_filters filters{};
  // Where planning runs, off the network loop. A server passes its own, which outlives the
  // master and is joined before its actor system goes; without one the master makes its own.
  std::shared_ptr<blocking_worker> planning{};
};

master_actor spawn_master(caf::actor_system& sys, master_options opts);

}  // namespace caflow
