#pragma once
// Memory types: on a device with memory of its own (a GPU), some args of some kernels are in
// host memory (TF's HostMemory: shapes, axes, feeds and fetches). After partitioning and the
// graph passes, every edge of a partition must connect an output and an input in the same
// memory. This pass makes it so, after TF's EnsureMemoryTypes:
//
//   - a Const or _Recv whose consumers all read in host memory produces there (a Const
//     becomes a HostConst, a _Recv gets recv_on_host), so a shape never visits the GPU;
//   - any other edge between memories gets a copy node, _CopyToHost or _CopyFromHost, made
//     once per tensor and direction.
//
// A partition of a device that computes in host memory (the CPU) is left as it is.
#include <functional>
#include <string_view>
#include <vector>

#include "graph/ir/graph.hpp"

namespace caflow {

struct memory_type_query {
  // Whether the partition's device computes in host memory; then the pass does nothing.
  bool host_device = true;
  // Per input and output of a node on the partition's device: true where it is host memory
  // (missing entries: device memory). The kernel layer knows; graph/ must not.
  std::function<void(const node_def& n, std::vector<bool>& inputs_on_host,
                     std::vector<bool>& outputs_on_host)>
      types;
};

// Errors: the partition does not build (names the node).
status ensure_memory_types(graph_def& partition, const memory_type_query& q);

}  // namespace caflow
