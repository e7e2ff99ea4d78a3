#pragma once
#include <atomic>
// The worker actor's state, shared by the files of its behavior: actors/worker.cpp (partitions,
// bindings and the behavior itself) and actors/worker_steps.cpp (runs and steps). Internal to
// the worker; see actors/worker.hpp for what it does.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/bulk_receiver.hpp"
#include "actors/bulk_sender.hpp"
#include "actors/shm_receiver.hpp"
#include "actors/shm_sender.hpp"
#include "actors/chunked_values.hpp"
#include "actors/device_actor.hpp"
#include "actors/executor.hpp"
#include "actors/log.hpp"
#include "actors/remote_rendezvous.hpp"
#include "actors/rendezvous_actor.hpp"
#include "actors/step_masters.hpp"
#include "actors/trace_recorder.hpp"
#include "actors/worker.hpp"
#include "kernels/local_rendezvous.hpp"

namespace caflow::worker_internal {

// A run finished and left its result in its run_frame. The executor's done callback sends it,
// from whatever thread that runs on, so the promise is delivered on the worker's own thread.
using cf_run_done_atom = caf::atom_constant<caf::atom("cf_rundone")>;
using worker_impl = worker_actor::extend<caf::reacts_to<cf_run_done_atom, uint64_t>>;

// Fetches one run may ask for: bounds what a malformed request makes the worker allocate.
constexpr int32_t max_rets = 1 << 20;
// How long an exiting worker waits for its cancelled steps before giving up on them.
constexpr std::chrono::seconds shutdown_patience{30};

struct registered_graph {
  std::string handle;
  std::string session;
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

// What a run shares with the executor's callbacks. Owned jointly, so nothing here is freed
// under a kernel; it holds nothing that must not be freed on a device thread.
struct run_frame {
  call_frame frame;
  status result;
  edge_batch sends;  // the last pass's values for the reply's process, sent with the reply
  // Claimed by whoever answers the run's requester first: the run itself when it ends
  // (run_answer, actors/worker_steps.cpp), else the worker (run_done, or its shutdown).
  std::atomic<bool> answered{false};
  std::shared_ptr<cancellation_manager> cancel;
  std::shared_ptr<remote_rendezvous> rdv;
};

struct pending_run {
  int64_t step_id = 0;
  graph_ptr graph;  // keeps the executor alive until the run is over
  std::shared_ptr<run_frame> run;
  caf::typed_response_promise<run_graph_reply> promise;
  caf::strong_actor_ptr reply_to;  // in another process: big fetches go ahead in chunks
};

struct step_record {
  std::shared_ptr<cancellation_manager> cancel = std::make_shared<cancellation_manager>();
  status aborted;  // the root cause, once aborted
  int running = 0;
  int expected_runs = 0;  // run_graph_request::runs_here; 0: the master cleans the step up
  int succeeded = 0;
  bool cleanup_requested = false;
  std::vector<graph_ptr> graphs;  // asked to run in this step: whose edges to clean up
};

// Runs handed to device threads, so an exiting worker can wait for them before its executors
// and device go away.
struct run_counter {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;

  void start() {
    std::lock_guard<std::mutex> lock(mu);
    ++running;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mu);
    if (--running == 0) cv.notify_all();
  }
  bool wait_idle(std::chrono::seconds patience) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, patience, [this] { return running == 0; });
  }
};

struct edge_endpoint {
  rendezvous_actor actor;
  int graphs = 0;  // registered graphs receiving through it
};

// One device of the task: the actor that owns and runs it, and the device itself, shared so
// that the worker can compile executors for it.
struct task_device {
  std::shared_ptr<device> dev;
  device_actor actor;
};

struct session_kernels {
  std::unique_ptr<kernel_cache> cache = std::make_unique<kernel_cache>();
  int graphs = 0;
};

struct worker_state {
  // First, so they are destroyed last: executors run kernels on them. CPU:0 comes first.
  std::vector<task_device> devices;
  device& cpu() const { return *devices.front().dev; }
  // nullptr when the task has no device of that name.
  const task_device* find_device(const std::string& name) const {
    for (const task_device& d : devices)
      if (d.dev->name() == name) return &d;
    return nullptr;
  }
  std::string task_name;  // "/job:J/replica:0/task:T"
  uint64_t incarnation = 0;
  int max_pending_steps_per_edge = 8;
  std::chrono::milliseconds stale_value_after{0};
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<run_counter> counter = std::make_shared<run_counter>();
  std::map<std::string, session_kernels> sessions;
  std::unordered_map<std::string, edge_endpoint> endpoints;  // by recv key
  std::unordered_map<std::string, graph_ptr> graphs;         // by handle
  std::unordered_map<int64_t, step_record> steps;
  step_masters masters;  // who runs each step: a lost master's steps end here too
  std::unordered_map<uint64_t, pending_run> runs;
  chunked_arrivals chunked_args;  // big feeds from masters in other processes, by step
  // Steps cleaned up here: late values for them are dropped, late work refused.
  std::shared_ptr<finished_steps> finished = std::make_shared<finished_steps>();
  // Those of them that did not succeed here: tensors still queued for them are dropped.
  std::shared_ptr<finished_steps> abandoned = std::make_shared<finished_steps>();
  uint64_t next_graph = 1;
  uint64_t next_run = 1;
  std::shared_ptr<trace_recorder> trace;  // the console's `trace on|off`, for every executor
  // Big cut-edge tensors to and from other processes (null: through CAF).
  std::unique_ptr<bulk_receiver> bulk_in;
  std::shared_ptr<bulk_sender> bulk_out;
  std::shared_ptr<shm_receiver> shm_in;  // null: no shared memory links (to or from here)
  std::shared_ptr<shm_sender> shm_out;
  static inline const char* name = "caflow.worker";

  worker_state() = default;
  worker_state(const worker_state&) = delete;
  worker_state& operator=(const worker_state&) = delete;
  ~worker_state();

  // Aborts a step on this task: pending _Recvs wake with `reason`, running kernels see the
  // cancellation, and later runs of the step are refused with `reason`.
  void abort_here(int64_t step_id, const status& reason) {
    if (finished->contains(step_id)) return;
    step_record& s = steps[step_id];
    if (!s.aborted.ok()) return;
    write_log(log_level::debug, task_name, "step ", step_id, " aborted: ", reason.to_string());
    s.aborted = reason;
    // Before the cancellation, whose _Recv callbacks would abort with a plain "cancelled".
    local->abort_step(step_id, reason);
    s.cancel->cancel();
  }
};

using worker_pointer = worker_impl::stateful_pointer<worker_state>;

// actors/worker.cpp
// Drops a deregistered graph's share of the edges' actors and of its session's kernels.
void release_graph(worker_state& st, const registered_graph& g);

// actors/worker_steps.cpp
// Forgets a step whose runs here are over, and has every rendezvous actor that may hold one
// of its values drop it. After runs that all succeeded (`succeeded`) no actor holds one: each
// of their _Recvs took its value, and each edge carries one value per step.
void finish_step(worker_pointer self, int64_t step_id, bool succeeded = false);
// A master that ran steps here is gone: its steps are aborted and cleaned up here.
void master_lost(worker_pointer self, const caf::down_msg& dm);
caf::result<run_graph_reply> start_run(worker_pointer self, const run_graph_request& req);
void run_done(worker_pointer self, uint64_t run_id);

}  // namespace caflow::worker_internal
