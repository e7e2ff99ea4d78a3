#pragma once
// TensorFlow 1.x control flow in a graph: which nodes are its primitives, which edges are a
// loop's back edges, and which execution frame every node runs in.
//
// A while loop is a frame: its Enter nodes take values from the enclosing frame into iteration 0
// (a constant Enter into every iteration), NextIteration carries a value into the next
// iteration, Exit hands the last iteration's value back to the enclosing frame. A cond needs no
// frame: Switch sends its input down one of two outputs, the other is dead, and deadness
// propagates until a Merge, which forwards whichever input is alive (Yu et al., "Dynamic Control
// Flow in Large-Scale Machine Learning", EuroSys 2018).
//
// The frame of a node is static: the frame of its inputs, except that the consumers of an Enter
// run in the Enter's frame (attr frame_name, a child of the Enter's own frame) and the consumers
// of an Exit run in the frame enclosing the Exit's.
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/status.hpp"
#include "graph/ir/graph_def.hpp"

namespace caflow {

class graph;
struct graph_node;

enum class control_flow_kind : uint8_t {
  none,
  switch_,
  merge,
  enter,
  exit,
  next_iteration,
  loop_cond,
  control_trigger,
};

control_flow_kind control_flow_kind_of(std::string_view op);
inline bool is_control_flow_op(std::string_view op) {
  return control_flow_kind_of(op) != control_flow_kind::none;
}
// Whether the graph needs frames and deadness to run (any Switch, Merge, Enter, Exit or
// NextIteration).
bool has_control_flow(const graph_def& def);

// Whether an executor must track frames and deadness for the graph: it has control flow, or it
// is a partition of a graph that has (its _Recvs, marked `in_control_flow_attr`, may deliver a
// dead value from an untaken branch on another device).
bool needs_frames(const graph_def& def);
inline constexpr const char* in_control_flow_attr = "_in_control_flow";

// The edge from a NextIteration into a Merge: it closes a loop, so topological orders leave it
// out (the Merge runs first, on its Enter input).
bool is_back_edge(std::string_view src_op, std::string_view dst_op);

struct frame_info {
  std::string name;    // "" for the root frame
  int parent = -1;     // index into control_flow_info::frames; -1 for the root
  int num_enters = 0;  // Enter nodes that feed the frame
  int parallel_iterations = 1;
};

struct control_flow_info {
  std::vector<frame_info> frames;  // [0] is the root frame
  std::vector<int> frame_of;       // per node id
};

// Errors name the node: a node reached from two frames, an Exit in the root frame, an Enter
// without a frame name, Enters of one frame that disagree on parallel_iterations, a
// NextIteration that feeds a Merge of another frame, a node no root reaches.
status_or<control_flow_info> analyze_control_flow(const graph& g);

}  // namespace caflow
