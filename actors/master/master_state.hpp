#pragma once
// The master actor's state and the pieces its behavior (actors/master/master.cpp) is made of, one
// concern per file: turning a run signature into registered partitions
// (actors/master/master_planning.cpp) and driving steps over them (actors/master/master_steps.cpp).
// Internal to the master actor: every function here runs on its thread.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "net/wire/chunked_values.hpp"
#include "actors/master/master.hpp"
#include "net/loop/local_step_answer.hpp"
#include "actors/master/step_stats.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/graph.hpp"
#include "graph/ir/run_signature.hpp"

namespace caflow::master_internal {

// One registered partition of a prepared run.
struct partition_ref {
  std::string task;
  std::string device;
  worker_actor worker;
  std::string graph_bytes;
  std::vector<std::string> send_keys;
  std::vector<int64_t> arg_indices;  // feeds this partition's _Arg nodes read
  std::string handle;                // from the worker, once registered
  int64_t num_nodes = 0;             // for the console's `graphs`
  bool remote = false;               // in another process: big feeds go to it in chunks
  int32_t runs_on_worker = 0;        // partitions of the signature its worker runs (runs_here)
};

// A run signature turned into registered partitions.
struct prepared_run {
  // Those in other processes first (remote_first): a step starts them in this order, so their
  // requests go out before this process's worker takes the loop to start its own partition.
  std::vector<partition_ref> parts;
  run_contract contract;  // what a step's feeds must be
  bool ready = false;  // planned, and registered with its workers
  status failed;
  std::vector<std::function<void()>> waiting;  // steps that arrived during registration
  size_t pending = 0;
  run_step_reply report;  // optimization and placement, sent with the first step's fetches
  bool reported = false;
};

struct master_session {
  session_config config;
  device_filters filters;  // the task's, narrowed by the session's own
  std::shared_ptr<const graph> full;
  std::map<std::string, std::shared_ptr<prepared_run>> cache;
  step_stats latency;  // recent steps, for the console's `steps`
  summary_report summaries;  // its client's last scalar of each tag, for `summaries`/`logdir`
};

// Who asked for a step: the promise to answer, and, for a client in another process, where its
// big fetches go ahead of the answer in chunks.
// Who waits for a step's answer: a requester's response promise, or a session of this
// process that asked without an actor (net/loop/local_step_answer.hpp).
struct step_client {
  caf::typed_response_promise<run_step_reply> promise;
  caf::strong_actor_ptr remote;  // null when the client shares this process
  local_step_promise_ptr local;  // set instead of `promise`

  void deliver(run_step_reply reply) {
    if (local) local->deliver(std::move(reply));
    else promise.deliver(std::move(reply));
  }
  void fail(const status& why) {
    if (local) local->deliver(why);
    else promise.deliver(to_caf_error(why));
  }
};

struct in_flight_step {
  std::shared_ptr<prepared_run> run;
  step_client client;
  std::vector<bool> replied;  // per partition
  size_t pending = 0;
  std::vector<wire_tensor> fetches;
  status root_cause;
  bool aborted = false;
  std::string session;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::vector<trace_event> trace{};  // a traced step's nodes, as its partitions reported them
};

struct master_state {
  master_options opts;
  caf::node_id node;  // this master's process, to tell local workers from remote ones
  // Each contacted task's devices, as its worker listed them (asked once per life of the task).
  std::map<std::string, std::vector<std::string>> task_devices;
  std::map<std::string, master_session> sessions;
  std::map<std::string, uint64_t> incarnations;  // by task, learned from registrations
  std::map<caf::actor_addr, std::string> task_of;
  // Tasks whose worker is gone, with why: a request to a dead remote actor would only fail at
  // its timeout, so plans that need one fail at once instead.
  std::map<std::string, status> lost;
  std::map<int64_t, in_flight_step> steps;
  // Tasks being contacted for the first time (or again), with what waits for them.
  std::map<std::string, std::vector<std::function<void()>>> contacting;
  // Pairs of tasks (earlier, later) this master had connect to each other.
  std::set<std::pair<std::string, std::string>> met;
  // Big feeds from clients (by their transfer id) and fetches from workers (by step id) that
  // came in chunks ahead of their message.
  chunked_arrivals arrivals;
  int64_t next_session = 1;
  // Step ids are drawn at random: workers may serve several masters (between-graph replication)
  // and outlive a restarted master, and refuse ids they have seen.
  std::mt19937_64 step_ids{std::random_device{}()};
  static inline const char* name = "caflow.master";
};

using master_pointer = master_actor::stateful_pointer<master_state>;

inline std::string own_task(const master_state& st) {
  return "/job:" + st.opts.job + "/replica:0/task:" + std::to_string(st.opts.task);
}

// The source of an error that arose with a task rather than at one of its nodes (it was lost,
// or failed a run outside its kernels).
inline std::shared_ptr<const error_source> task_source(const std::string& task) {
  return std::make_shared<const error_source>(error_source{{}, {}, task});
}

// What planning a signature needs, copied out of the master's state, and what it gives.
struct plan_job {
  std::shared_ptr<const graph> full;
  session_config config;
  std::vector<std::string> feed_names, fetches, targets;
  std::string default_device;
  std::vector<std::string> devices;
  device_filters filters;  // the session's: a node may ask only for devices they admit
  std::map<std::string, uint64_t> incarnations;  // by task
  status result;
  std::shared_ptr<prepared_run> run;  // partitions without their workers yet
};

// master_planning.cpp: prunes, places and partitions the session's graph for `req`'s
// signature and runs the graph passes on every partition, on a thread of its own; then, back
// on the master, registers the partitions (below). Steps waiting on `run` start when that is
// done, or fail with it.
void plan_then_register(master_pointer self, std::shared_ptr<prepared_run> run,
                        const std::string& session, const run_step_request& req);
// Registers `run`'s partitions with their workers, then binds their _Sends to the _Recvs'
// rendezvous actors; steps waiting on the run start when that is done (or fail with it).
void register_partitions(master_pointer self, std::shared_ptr<prepared_run> run,
                         const std::string& session);
// Puts the partitions in other processes first, each group in its own order.
void remote_first(std::vector<partition_ref>& parts);

// master_peers.cpp
// The tasks a session with `filters` may use: the master's own and every other the filters
// admit, in cluster order.
std::vector<std::string> tasks_in_scope(const master_state& st, const device_filters& filters);
// Runs `then` once every task of `scope` has been contacted (a task that cannot be reached
// within the patience is recorded as lost, with why) and has listed its devices.
void with_peers(master_pointer self, const std::vector<std::string>& scope,
                std::function<void()> then);
// The devices placement may use under `filters`: every contacted task's (its CPU:0 when its
// worker did not list them, so a step that needs a lost task fails naming it).
std::vector<std::string> devices_in_scope(const master_state& st, const device_filters& filters);
// Has the earlier task of every pair in `pairs` connect to the later one, unless this master
// did so before or one of them is its own task (it is connected to every task it uses); runs
// `then` with the first failure, or with ok once all are connected.
void meet_pairs(master_pointer self, std::set<std::pair<std::string, std::string>> pairs,
                std::function<void(status)> then);
// A task was lost: its devices and connections are learned anew when it is found again.
void forget_peer(master_state& st, const std::string& task);

// master_steps.cpp
void start_step(master_pointer self, std::shared_ptr<prepared_run> run, run_step_request req,
                step_client client);
// Records a partition's failure and aborts the step on every worker.
void step_failed(master_pointer self, int64_t step_id, const status& why);
// One partition of the step answered (or never will); the last one finishes the step.
void partition_done(master_pointer self, int64_t step_id, size_t part);
void check_deadlines(master_pointer self);
status claim_chunked_feeds(chunked_arrivals& arrivals, run_step_request& req);
status check_feeds(const prepared_run& run, const run_step_request& req);

}  // namespace caflow::master_internal
