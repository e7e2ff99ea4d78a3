#pragma once
// The worker actor's state, shared by the files of its behavior: actors/worker/worker.cpp (partitions,
// bindings and the behavior itself) and actors/worker/worker_steps.cpp (runs and steps). Internal to
// the worker; see actors/worker/worker.hpp for what it does.
#include <atomic>
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

#include "actors/executor/executor.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "actors/worker/graph_registry.hpp"
#include "actors/worker/step_table.hpp"
#include "actors/worker/worker.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "net/device_filters.hpp"
#include "net/edge_transport.hpp"

namespace caflow::worker_internal {

// A run finished and left its result in its run_frame. The executor's done callback sends it,
// from whatever thread that runs on, so the promise is delivered on the worker's own thread.
using cf_run_done_atom = caf::atom_constant<caf::atom("cf_rundone")>;
using worker_impl = worker_actor::extend<caf::reacts_to<cf_run_done_atom, uint64_t>>;

// How long an exiting worker waits for its cancelled steps before giving up on them.
constexpr std::chrono::seconds shutdown_patience{30};

// What a run shares with the executor's callbacks. Owned jointly, so nothing here is freed
// under a kernel; it holds nothing that must not be freed on a device thread.
struct run_frame {
  call_frame frame;
  status result;
  edge_batch sends;  // the last pass's values for the reply's process, sent with the reply
  // Claimed by whoever answers the run's requester first: the run itself when it ends
  // (run_answer, actors/worker/worker_steps.cpp), else the worker (run_done, or its shutdown).
  std::atomic<bool> answered{false};
  std::shared_ptr<cancellation_manager> cancel;
  std::shared_ptr<remote_rendezvous> rdv;
  // A traced run's own recorder (run_graph_request::trace): its events go with the reply.
  std::shared_ptr<trace_recorder> trace;
};

struct pending_run {
  int64_t step_id = 0;
  graph_ptr graph;  // keeps the executor alive until the run is over
  std::shared_ptr<run_frame> run;
  caf::typed_response_promise<run_graph_reply> promise;
  caf::strong_actor_ptr reply_to;  // in another process: big fetches go ahead in chunks
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

// The worker's state: its devices, its graphs (graph_registry), its steps (step_table), the
// runs in flight, and its edge transport (net/edge_transport.hpp). The behavior's handlers
// (actors/worker/worker.cpp) only dispatch to them.
struct worker_state {
  // First, so they are destroyed last: executors run kernels on them. CPU:0 comes first.
  std::vector<task_device> devices;
  device& cpu() const { return *devices.front().dev; }
  std::string task_name;  // "/job:J/replica:0/task:T"
  uint64_t incarnation = 0;
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<run_counter> counter = std::make_shared<run_counter>();
  std::shared_ptr<trace_recorder> trace;  // the console's `trace on|off`, for every executor
  std::unique_ptr<step_table> steps;
  // How cut-edge values reach other tasks and arrive from them.
  std::shared_ptr<edge_transport> transport;
  std::unique_ptr<graph_registry> graphs;
  std::unordered_map<uint64_t, pending_run> runs;
  uint64_t next_run = 1;
  device_filters filters;  // the tasks a master may have it meet
  std::chrono::milliseconds meet_timeout{5000};
  static inline const char* name = "caflow.worker";

  worker_state() = default;
  worker_state(const worker_state&) = delete;
  worker_state& operator=(const worker_state&) = delete;
  ~worker_state();
};

using worker_pointer = worker_impl::stateful_pointer<worker_state>;

// actors/worker/worker_steps.cpp
// Forgets a step whose runs here are over, and has every rendezvous actor that may hold one
// of its values drop it. After runs that all succeeded (`succeeded`) no actor holds one: each
// of their _Recvs took its value, and each edge carries one value per step.
void finish_step(worker_pointer self, int64_t step_id, bool succeeded = false);
// A master that ran steps here is gone: its steps are aborted and cleaned up here.
void master_lost(worker_pointer self, const caf::down_msg& dm);
caf::result<run_graph_reply> start_run(worker_pointer self, const run_graph_request& req);
void run_done(worker_pointer self, uint64_t run_id);

}  // namespace caflow::worker_internal
