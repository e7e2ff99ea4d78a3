#pragma once
// The partitions registered with a worker, as TensorFlow's GraphMgr keeps them: each is
// validated (every node on one device of this task), compiled into an executor (stateful
// kernels shared per session), given a handle, and offered one rendezvous actor per edge it
// receives; `bind` then says where each of its _Sends goes. A deregistered graph is released
// once no run uses it. Each graph belongs to the master that registered it: a master the worker
// loses can no longer deregister its graphs, so they go with it (remove_owned_by), as TF's
// workers drop the sessions of a master incarnation that is gone. Owned by the worker actor;
// not thread-safe.
#include <chrono>
#include <cstdint>
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/actor_addr.hpp>
#include <caf/fwd.hpp>

#include "actors/device/device_actor.hpp"
#include "actors/executor/executor.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "actors/rendezvous/remote_rendezvous.hpp"
#include "net/edge_transport.hpp"
#include "net/finished_steps.hpp"
#include "net/protocol.hpp"

namespace caflow::worker_internal {

// Fetches one run may ask for: bounds what a malformed request makes the worker allocate.
constexpr int32_t max_rets = 1 << 20;

// One device of the task: the actor that owns and runs it, and the device itself, shared so
// that the worker can compile executors for it.
struct task_device {
  std::shared_ptr<device> dev;
  device_actor actor;
};

struct registered_graph {
  std::string handle;
  std::string session;
  caf::actor_addr owner;  // the master that registered it; none for an anonymous request
  device_actor dev;  // runs it
  bool start_here = false;  // a CPU partition: the worker starts its runs (worker_steps.cpp)
  std::unique_ptr<executor> exec;
  std::vector<std::string> recv_keys;
  std::set<std::string> send_keys;
  std::vector<int64_t> arg_indices;
  int64_t rets_needed = 0;  // 1 + the highest _Retval index
  // Replaced by each bind; a graph without _Sends runs with the one made at registration.
  std::shared_ptr<remote_rendezvous> rdv;
  bool bound = false;
  int running = 0;
  bool retired = false;  // deregistered: released once `running` drops to 0
};
using graph_ptr = std::shared_ptr<registered_graph>;

// What every graph of a task shares.
struct graph_registry_context {
  std::string task_name;  // "/job:J/replica:0/task:T"
  uint64_t incarnation = 0;
  const std::vector<task_device>* devices = nullptr;  // CPU:0 first
  std::shared_ptr<rendezvous> local;                   // where received values wait
  std::shared_ptr<const finished_steps> finished;      // late values for these are dropped
  std::shared_ptr<edge_transport> transport;
  std::shared_ptr<trace_recorder> trace;
  int max_pending_steps_per_edge = 8;
  std::chrono::milliseconds stale_value_after{0};
};

class graph_registry {
 public:
  explicit graph_registry(graph_registry_context ctx = {}) : ctx_(std::move(ctx)) {}
  // The edges' rendezvous actors end with the registry.
  ~graph_registry();
  graph_registry(const graph_registry&) = delete;
  graph_registry& operator=(const graph_registry&) = delete;

  // Validates and compiles `req`'s partition and spawns its edges' actors in `sys`. Errors
  // name the partition's device and the node at fault. `owner` is the registering master: the
  // graph goes with it (remove_owned_by).
  status_or<register_graph_reply> add(caf::actor_system& sys, const register_graph_request& req,
                                      const caf::actor_addr& owner);
  // Errors: an unknown handle, a send key the graph lacks, one bound twice or left unbound.
  status bind(const bind_request& req);
  // Forgets the handle; the graph is released when its last run is over (finish_run).
  status remove(const std::string& handle);
  // Removes (as `remove` does) every graph `owner` registered; returns how many.
  size_t remove_owned_by(const caf::actor_addr& owner);
  // Null when no graph has that handle.
  graph_ptr find(const std::string& handle) const;

  // A run of `g` started or ended; the last run of a removed graph releases it.
  static void start_run(registered_graph& g) { ++g.running; }
  void finish_run(registered_graph& g);

  // The rendezvous actor of each edge this task receives (for a step's cleanup).
  const rendezvous_actor* endpoint(const std::string& recv_key) const;
  template <class F>
  void for_each_endpoint(F&& f) const {
    for (const auto& [key, e] : endpoints_) f(e.actor);
  }
  template <class F>
  void for_each_graph(F&& f) const {
    for (const auto& [handle, g] : graphs_) f(g);
  }

 private:
  struct edge_endpoint {
    rendezvous_actor actor;
    // Registered graphs receiving through it; its actor reads the count (each graph, one per
    // master, may hold its own steps' values there).
    std::shared_ptr<std::atomic<int>> graphs = std::make_shared<std::atomic<int>>(0);
  };
  struct session_kernels {
    std::unique_ptr<kernel_cache> cache = std::make_unique<kernel_cache>();
    int graphs = 0;
  };

  const task_device* find_device(const std::string& name) const;
  status read_node(const std::string& dev, const node_def& n, registered_graph& g,
                   std::set<std::string>& recv_seen) const;
  status_or<graph_ptr> compile(const register_graph_request& req);
  // Drops a deregistered graph's share of the edges' actors and of its session's kernels.
  void release(const registered_graph& g);

  graph_registry_context ctx_;
  std::map<std::string, session_kernels> sessions_;
  std::unordered_map<std::string, edge_endpoint> endpoints_;  // by recv key
  std::unordered_map<std::string, graph_ptr> graphs_;         // by handle
  uint64_t next_graph_ = 1;
};

}  // namespace caflow::worker_internal
