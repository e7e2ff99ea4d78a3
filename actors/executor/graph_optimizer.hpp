#pragma once
// The graph passes (graph/ir/passes/) as the runtime runs them: on a local session's pruned graph
// and on every partition the master caches, with constant folding evaluated once on a host CPU
// device. graph/ knows no kernels; this is where the passes get their evaluator.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "graph/ir/passes/pass.hpp"

namespace caflow {

class cpu_device;

// The passes the runtime runs on every pruned graph and partition: pass_pipeline::standard()
// (cse, constant folding), then the remapper (graph/ir/passes/remapper.hpp), which fuses
// contraction + BiasAdd + activation on the CPU. Stateless and shared.
const pass_pipeline& runtime_pipeline();

// Runs `fetches` of a stateless `subgraph` once on `dev` (constant folding's evaluator).
status_or<std::vector<tensor>> evaluate_stateless(const graph_def& subgraph,
                                                  const std::vector<std::string>& fetches,
                                                  device& dev,
                                                  std::chrono::milliseconds timeout);

// What the passes did to the graphs of one run signature, summed.
struct optimization_report {
  int64_t nodes_removed = 0;
  int64_t nodes_folded = 0;
  std::string summary;  // summarize() of each graph's passes, "; "-joined

  void add(const std::vector<pass_stats>& passes);
};

// Optimizes partitions for a master. The folding device is created on first use, so masters
// whose sessions turn folding off never start its threads.
class partition_optimizer {
 public:
  partition_optimizer();
  ~partition_optimizer();

  // Rewrites `partition` (a worker's graph with _Arg/_Retval/_Send/_Recv) in place. Nodes
  // named in `keep` (the run's targets) survive, as do all stateful ones.
  status_or<std::vector<pass_stats>> run(graph_def& partition, const optimizer_options& opts,
                                         const std::vector<std::string>& keep);

 private:
  std::unique_ptr<cpu_device> cpu_;
};

}  // namespace caflow
