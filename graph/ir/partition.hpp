#pragma once
// Partitioning a placed graph into one graph per device, cut edges becoming _Send/_Recv pairs.
//
//   placed                        partitioned
//   ps         a                  ps         a ──▶ _send_a_0_to_worker_task0_CPU_0
//   worker 0   b(a), c(a)         worker 0   _recv_a_0_to_worker_task0_CPU_0 ─┬─▶ b
//                                                                            └─▶ c
// A tensor crosses to a device once, however many nodes there consume it: one pair per
// (source node, source port, destination device). A control edge crossing devices becomes a
// dummy scalar Const (after the source) sent to a _Recv that the consumer waits on, so the
// ordering holds across devices. Each Send and its Recv share a rendezvous key, built from
// their attrs, under which the runtime hands the tensor over.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

struct partition_options {
  // Canonical full device name -> its incarnation, a number the device picks at start-up so
  // that a restarted device is not mistaken for its previous life. Every device that sends
  // a tensor to another must have one.
  std::map<std::string, uint64_t> incarnations;
};

struct partitioned {
  // Canonical full device name -> that device's graph. Every node_def::device is set to the
  // full name, and each graph passes graph::build on its own.
  std::map<std::string, graph_def> partitions;
};

// `placement` holds one full device name per node id (as place() returns). Errors: a
// placement of the wrong length or with a name that is not a full device name, a reference
// input whose producer is on another device (a reference cannot cross devices: colocate
// them), a sending device with no incarnation.
status_or<partitioned> partition(const graph& g, const std::vector<std::string>& placement,
                                 const partition_options& opts);

// "send_device;incarnation as 16 hex digits;recv_device;tensor_name;0:0", TensorFlow's
// rendezvous key layout, the same for a _Send and its _Recv. REQUIRES: a _Send or _Recv node
// with its attrs (one that passed graph::build).
std::string rendezvous_key(const node_def& send_or_recv);
// The key of the edge's value in one iteration of a while loop's frame: the ";0:0" that
// rendezvous_key ends with becomes ";<frame id>:<iteration>" (frame ids are below 2^63).
std::string rendezvous_key_in_frame(std::string_view key, uint64_t frame_id, int64_t iter);
// The edge's key of a key made by rendezvous_key_in_frame.
std::string rendezvous_edge_key(std::string_view key);

struct parsed_rendezvous_key {
  std::string send_device;
  uint64_t send_device_incarnation = 0;
  std::string recv_device;
  std::string tensor_name;  // the cut edge, "node:port"
  int64_t frame_id = 0;     // the while-loop frame and iteration; 0:0 outside of loops
  int64_t iter_id = 0;
};

// Errors quote the key and say which part is malformed.
status_or<parsed_rendezvous_key> parse_rendezvous_key(std::string_view key);

}  // namespace caflow
