#pragma once
// Runs one graph (a partition) on one device, step after step. Scheduling is by pending
// counts: a node becomes ready when all its data and control inputs have completed. Cheap
// kernels run inline on the thread that made them ready; expensive ones are handed to the
// device's inter-op pool when more than one is ready, so independent nodes run in parallel.
// Asynchronous kernels (Recv, queues) hold no thread while they wait.
//
// On an actor's thread (inside an `actor_thread_scope`) the executor runs only light nodes
// (_Send, _Recv, and stateless kernels measured to take under `light_node_ns` on inputs of at
// most `light_input_bytes`) and hands the rest to the device's pool: a small distributed step
// then continues on the thread its value arrived on instead of waking a device thread at
// every edge, while no kernel of any size holds an actor. A node's cost is the smaller of its
// last two measured run times; it is measured whenever it runs on an actor's thread or is
// handed from one to the device, while unknown, and on every 16th step elsewhere.
//
// The first error aborts the step: nodes not yet started are skipped, the step's cancellation
// wakes waiting asynchronous kernels, and `done` receives that first error prefixed with the
// node's name, op and device. Every node completes or is skipped, so `done` runs exactly once.
//
// A graph with control flow (graph/ir/control_flow.hpp) runs on a second path
// (actors/executor/executor_frames.cpp): as TensorFlow's executor, it keeps pending counts per frame and
// iteration, propagates dead values from untaken branches, and runs up to parallel_iterations
// iterations of a loop at once. Graphs without control flow never pay for it.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "graph/ir/graph.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

// Kernels of stateful ops (random generators, queues) shared by every executor of a session, so
// two run signatures that both contain a node use one kernel and one state, as TensorFlow's
// OpSegment does. Keyed by node name; a node redefined under the same name gets a new kernel.
class kernel_cache {
 public:
  status_or<std::shared_ptr<op_kernel>> get_or_create(const graph_node& n, device& dev);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<op_kernel>> kernels_;
};

class trace_recorder;
class recv_waits;
struct waiting_recv;
struct node_trace_info;
struct error_source;

class executor {
 public:
  using done_fn = std::function<void(const status&)>;

  static constexpr int64_t light_node_ns = 20000;
  static constexpr size_t light_input_bytes = 64 * 1024;

  // Marks the calling thread as an actor's while it lives (see above). Nests.
  class actor_thread_scope {
   public:
    actor_thread_scope();
    ~actor_thread_scope();
    actor_thread_scope(const actor_thread_scope&) = delete;
    actor_thread_scope& operator=(const actor_thread_scope&) = delete;
  };
  static bool on_actor_thread();

  // Builds one kernel per node on `dev` (stateful ones through `shared`, when given). Errors
  // name the node (e.g. no kernel for a dtype).
  static status_or<std::unique_ptr<executor>> create(std::shared_ptr<const graph> g, device& dev,
                                                     kernel_cache* shared = nullptr);
  ~executor();

  // Starts a step. REQUIRES: step.cancellation is non-null and outlives the step; so does
  // step.frame if the graph has _Arg/_Retval nodes. `done` may run before this returns.
  void run_async(const step_context& step, done_fn done);
  // Runs a step and waits for it. A positive `timeout` cancels the step when it passes and
  // then reports deadline_exceeded.
  status run(const step_context& step, std::chrono::milliseconds timeout = {});

  const graph& get_graph() const { return *graph_; }
  device& get_device() const { return dev_; }

  // Steps started while `trace` is enabled record every node they run there.
  void set_trace(std::shared_ptr<trace_recorder> trace) { trace_ = std::move(trace); }
  // The _Recvs waiting for their value right now (the console's `pending`).
  std::vector<waiting_recv> waiting_recvs() const;

 private:
  struct node_item;
  struct step_state;
  struct ready_list;
  struct frame_plan;  // actors/executor/executor_frames.cpp
  struct capture_plan;  // actors/executor/executor_capture.cpp
  struct node_times;    // actors/executor/executor_node_times.cpp
  struct frame_step;
  friend struct frame_step;

  executor(std::shared_ptr<const graph> g, device& dev);
  void process(step_state* s, ready_list& ready);
  // `off_actor`: handed to the device's threads, so measured (it may be light again).
  void run_node(step_state* s, int id, ready_list& ready, bool off_actor = false);
  void finish_node(step_state* s, int id, kernel_value* outputs, const status& st,
                   ready_list& ready);
  bool prepare_inputs(step_state* s, const node_item& item, kernel_value* inputs);
  // Reads variables behind references and checks each input's memory; errors name the node.
  status read_inputs(const node_item& item, kernel_value* inputs) const;
  int id_of(const node_item& item) const;
  // "node 'x' (Op) on <device>", and the node, device and task, for an error of node `id`.
  std::string error_prefix(int id) const;
  std::shared_ptr<const error_source> error_source_of(int id) const;
  // `st` (an error of node `id`) with the node's prefix and source.
  status node_error(int id, status st) const;
  std::shared_ptr<const node_trace_info> make_trace_info(int id) const;
  // Where a step that starts now records its nodes (null: nowhere); every node then has its
  // trace info.
  trace_recorder* tracer_for(const step_context& step);
  // Fills node_item::sole_send_keys.
  static void plan_sole_sends(const graph& g, std::vector<node_item>& items);
  // The control-flow path (actors/executor/executor_frames.cpp).
  static status_or<std::unique_ptr<frame_plan>> plan_frames(const executor& ex);
  void run_frames_async(const step_context& step, done_fn done);
  // The recordable nodes (actors/executor/executor_capture.cpp). A gated step holds each segment of
  // them until every input from outside the core is in, then replays its recording, records
  // it, or runs its kernels in order.
  static std::unique_ptr<capture_plan> plan_capture(const executor& ex);
  bool gate_step(step_state* s);
  void run_segment(step_state* s, int k, ready_list& ready);
  status run_segment_nodes(step_state* s, int k, device_capture* capture);
  bool replay_matches(step_state* s, int k) const;
  status record_segment(step_state* s, int k);
  void fall_back(const std::string& why, bool for_good);
  // Whether node `id`, whose inputs are all in, may run on this thread.
  bool runs_here(const step_state* s, int id) const;
  void run_on_device(step_state* s, int id);
  int64_t cost_of(int id) const;  // -1 while unknown
  void record_cost(int id, int64_t ns);

  std::shared_ptr<const graph> graph_;
  device& dev_;
  memory_space* memory_;  // the device's (nullptr: host memory)
  std::vector<node_item> items_;
  std::vector<int> roots_;
  int num_input_slots_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> costs_;  // per node: see cost_of
  std::shared_ptr<trace_recorder> trace_;
  std::once_flag trace_infos_made_;
  std::unique_ptr<recv_waits> waits_;
  std::unique_ptr<frame_plan> frames_;  // only for graphs with control flow
  std::unique_ptr<capture_plan> capture_;  // only on devices that record their work
  // With CAFLOW_NODE_TIMES set: each node's wall time (a kernel's host part; a _Recv's wait),
  // logged at info when the executor goes, for finding where a step waits.
  std::unique_ptr<node_times> times_;
  static std::unique_ptr<node_times> make_node_times(size_t nodes, size_t segments);
  void add_node_time(int id, std::chrono::steady_clock::time_point start);
  void add_segment_time(int k, std::chrono::steady_clock::time_point start);
  void log_node_times() const;
};

}  // namespace caflow
