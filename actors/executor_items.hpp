#pragma once
// The executor's per-node records, shared by its two paths: actors/executor.cpp (graphs without
// control flow) and actors/executor_frames.cpp (frames, iterations and deadness). Private to them.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "actors/executor.hpp"
#include "actors/trace_recorder.hpp"
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
  std::string error_prefix;    // "node 'x' (Op) on <device>"
  std::shared_ptr<const error_source> source;   // the node, its device and task, for its errors
  std::shared_ptr<const node_trace_info> info;  // what traces and `pending` say of the node
  bool is_send = false;
  bool is_recv = false;
  bool may_inline = false;  // on an actor's thread, if measured light
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
