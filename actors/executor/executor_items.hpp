#pragma once
// The executor's per-node records, shared by its two paths: actors/executor/executor.cpp (graphs without
// control flow) and actors/executor/executor_frames.cpp (frames, iterations and deadness). Private to them.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "actors/executor/executor.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "devices/device_graph.hpp"
#include "graph/ir/control_flow.hpp"

namespace caflow {

namespace input_flags {
constexpr uint8_t deref = 1;        // read the variable behind a Ref(T) output
constexpr uint8_t any_memory = 2;   // not checked: a reference, or a _Send's value
constexpr uint8_t host_memory = 4;  // the kernel reads it in host memory (else the device's)
}  // namespace input_flags

struct executor::node_item {
  std::shared_ptr<op_kernel> kernel;
  bool is_async = false;
  bool expensive = false;
  int input_start = 0;
  int num_inputs = 0;
  int num_outputs = 0;
  int initial_pending = 0;
  // Per input, input_flags: read the variable behind a Ref(T) output; where the kernel reads
  // the value (a value elsewhere is a runtime bug, reported, never read). One byte per input
  // keeps the node small: the executor touches it at every node of every step.
  std::vector<uint8_t> input;
  std::vector<out_edge> outputs;
  // What traces and `pending` say of the node: made with the executor for _Sends and _Recvs,
  // and for the others by the first step that traces (executor::tracer_for). Error messages
  // are made from the graph when an error arises: a graph of 100k nodes would otherwise keep
  // half a kilobyte of names per node that no step ever reads.
  std::shared_ptr<const node_trace_info> info;
  bool is_send = false;
  bool is_recv = false;
  bool may_inline = false;  // on an actor's thread, if measured light
  // By output port, the key of the _Send that alone reads it (else empty): the rendezvous may
  // give such an output memory the send needs no copy from (rendezvous::output_allocator).
  // Empty when no output is one.
  std::vector<std::string> sole_send_keys;
};

inline int executor::id_of(const node_item& item) const {
  return static_cast<int>(&item - items_.data());
}

// The nodes of a partition that are recorded and replayed (devices/device_graph.hpp), in
// segments, and their recordings. Built when the device can record and the graph has no
// control flow; see actors/executor/executor_capture.cpp.
struct executor::capture_plan {
  // An input of a segment's node from outside the core, and what the recording keeps of it: a
  // fixed buffer a replay copies the step's value into, the host value it must equal, or the
  // variable (and its buffer) it must still be.
  struct inlet {
    int node = 0;
    int port = 0;
    tensor fixed{};
    tensor host_value{};
    std::shared_ptr<variable> var{};
    const void* var_data = nullptr;
  };
  struct segment {
    std::vector<int> order;  // its nodes, topologically ordered
    int external_edges = 0;  // data and control edges into it from nodes outside the core
    std::vector<inlet> inlets;
    std::unique_ptr<device_graph> graph;
  };
  enum class phase { record, replay, off };

  std::vector<int> segment_of;  // per node: its segment, or -1 outside the core
  std::vector<segment> segments;

  // One step at a time uses the recordings; a step finding them busy runs as it would without.
  std::atomic<bool> busy{false};
  phase state = phase::record;
  int warm_ups_left = 1;  // plain steps before a recording: kernels plan and measure first
  int fallbacks = 0;
  bool said_fallback = false;
  // Per node of the core: the values of its outputs read outside its segment (by nodes outside
  // the core, or in a later segment), as its last run or the recording left them.
  std::vector<std::vector<kernel_value>> kept;
};

// Per node and per recorded segment: wall time in all and runs (CAFLOW_NODE_TIMES).
struct executor::node_times {
  explicit node_times(size_t nodes, size_t segments)
      : ns(new std::atomic<int64_t>[nodes]()), runs(new std::atomic<int64_t>[nodes]()),
        segment_ns(new std::atomic<int64_t>[segments + 1]()),
        segment_runs(new std::atomic<int64_t>[segments + 1]()) {}
  std::unique_ptr<std::atomic<int64_t>[]> ns, runs, segment_ns, segment_runs;
};

// A step's first error and whether it has aborted, kept the same way by both paths.
class step_errors {
 public:
  void abort(const status& st) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (first_.ok()) first_ = st;
    }
    aborted_.store(true, std::memory_order_release);
  }
  bool aborted(std::memory_order order = std::memory_order_acquire) const {
    return aborted_.load(order);
  }
  status first() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_;
  }

 private:
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  status first_;
};

struct executor::step_state {
  step_context step;
  done_fn done;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::vector<kernel_value> inputs;
  std::atomic<int> remaining{0};
  step_errors errors;
  cancellation_manager::token cancel_token = 0;
  bool registered = false;
  trace_recorder* trace = nullptr;  // set when the step started while tracing was on
  // The core (actors/executor/executor_capture.cpp) runs in segments: edges into segment k from outside
  // the core count down core_wait[k]; `capture_mode` is what this step does with them.
  bool gated = false;
  int capture_mode = 0;  // capture_plan::phase
  std::unique_ptr<std::atomic<int>[]> core_wait;

  void abort(const status& st) { errors.abort(st); }
};

// Nodes made ready while processing; most steps never outgrow the inline capacity.
struct executor::ready_list {
  std::vector<int> ids;
  void push(int id) { ids.push_back(id); }
  bool empty() const { return ids.empty(); }
  int pop() {
    const int id = ids.back();
    ids.pop_back();
    return id;
  }
};

// What the control-flow path knows of each node and frame beyond its node_item: the node's
// static frame (graph/ir/control_flow.hpp) and its place in that frame's per-iteration arrays.
struct executor::frame_plan {
  struct node_info {
    control_flow_kind kind = control_flow_kind::none;
    int frame = 0;             // static frame index
    int local_id = 0;          // index among the nodes of its frame
    int local_input_start = 0; // first input slot among its frame's
    int initial_pending = 0;   // a Merge: 1 + 2 x control inputs (bit 0: no live input yet)
    int child_frame = -1;      // an Enter: the frame it enters
    bool constant_enter = false;
    bool is_retval = false;
    bool is_transfer = false;  // _Send or _Recv: runs even when dead, to pass the deadness on
  };
  struct frame {
    std::string name;
    int parent = -1;
    int parallel_iterations = 1;
    int num_enters = 0;
    int num_nodes = 0;
    int num_input_slots = 0;
    std::vector<int> initial_pending;  // per local node
  };
  std::vector<node_info> nodes;
  std::vector<frame> frames;
  std::vector<int> roots;  // root-frame nodes with nothing to wait for
};

}  // namespace caflow
