#pragma once
// Small constants and feeds read on other devices. A constant placed where its scope says (a worker's
// learning rate, Adam's betas, a loss's scale) and read by an op on a parameter server is a cut
// edge: a _Send/_Recv pair, a message and a wake-up on both tasks at every step, for a value
// that never changes. A copy of the constant on each other device that reads it (of the same
// device type, so a kernel is known to exist there) feeds those readers locally, and the edge
// is gone. The original stays for its own device's readers and for runs that fetch it.
//
// Only small constants (at most max_bytes) without control inputs are copied: copying a big
// one would keep it twice in memory, and one with control inputs runs only after them. A graph
// with control flow is left alone, as the other partition-shaping passes leave it.
//
// Feeds are copied the same way, whatever their size. A fed value read on another task's CPU
// otherwise waits for the master's own partition to start and send it on: two network legs
// in a row, where the copy's _Arg takes the value straight from that task's run request (the
// master sends it there instead of to its own partition, so it still crosses once).
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

// The name session_config::disabled_passes turns it off by.
inline constexpr const char* const_copies_pass = "const_copies";

struct const_copied_graph {
  graph_def def;                       // g's nodes (same ids), then the copies
  std::vector<std::string> placement;  // by node id, the copies included
  int64_t copies = 0;                  // 0: def and placement are empty (g stands as it is)
};

const_copied_graph copy_constants_to_readers(const graph& g,
                                             const std::vector<std::string>& placement,
                                             int64_t max_bytes = 1024);
// The same without copying g's definition: when there are copies, it is moved out of `g`,
// which is then left empty (build the result instead); with none, `g` stands as it was.
const_copied_graph copy_constants_to_readers(graph&& g,
                                             const std::vector<std::string>& placement,
                                             int64_t max_bytes = 1024);

}  // namespace caflow
