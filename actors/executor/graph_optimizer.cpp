#include "actors/executor/graph_optimizer.hpp"

#include "actors/executor/executor.hpp"
#include "devices/cpu_device.hpp"
#include "graph/ir/passes/remapper.hpp"

namespace caflow {

status_or<std::vector<tensor>> evaluate_stateless(const graph_def& subgraph,
                                                  const std::vector<std::string>& fetches,
                                                  device& dev,
                                                  std::chrono::milliseconds timeout) {
  CAFLOW_ASSIGN_OR_RETURN(graph whole, graph::build(subgraph));
  CAFLOW_ASSIGN_OR_RETURN(pruned_graph p, prune_for_run(whole, run_signature{{}, fetches, {}}));
  CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(p.def), {.infer_shapes = false}));
  CAFLOW_ASSIGN_OR_RETURN(auto exec, executor::create(std::make_shared<const graph>(std::move(g)), dev));
  call_frame frame;
  frame.rets.resize(fetches.size());
  cancellation_manager cancel;
  CAFLOW_RETURN_IF_ERROR(exec->run({0, &frame, &cancel, nullptr}, timeout));
  return std::move(frame.rets);
}

const pass_pipeline& runtime_pipeline() {
  static const pass_pipeline pipeline = [] {
    pass_pipeline p = pass_pipeline::standard();
    p.add(std::make_unique<remapper_pass>());
    return p;
  }();
  return pipeline;
}

void optimization_report::add(const std::vector<pass_stats>& passes) {
  for (const pass_stats& p : passes) {
    nodes_removed += p.removed;
    nodes_folded += p.folded;
  }
  if (passes.empty()) return;
  if (!summary.empty()) summary += "; ";
  summary += summarize(passes);
}

partition_optimizer::partition_optimizer() = default;
partition_optimizer::~partition_optimizer() = default;

status_or<std::vector<pass_stats>> partition_optimizer::run(graph_def& partition,
                                                            const optimizer_options& opts,
                                                            const std::vector<std::string>& keep) {
  const pass_pipeline& standard = runtime_pipeline();
  pass_context ctx;
  ctx.options = opts;
  ctx.protected_nodes = protected_nodes_for(partition, run_signature{});
  ctx.protected_nodes.insert(keep.begin(), keep.end());
  if (opts.constant_folding) {
    // One thread each: folding runs once per signature on small graphs, inside the master's
    // handler, and must not compete with the worker's pools.
    if (!cpu_) cpu_ = std::make_unique<cpu_device>("/job:localhost/replica:0/task:0/device:CPU:0",
                                                   cpu_device_options{.intra_op_threads = 1,
                                                                      .inter_op_threads = 1});
    ctx.evaluate = [this](const graph_def& sub, const std::vector<std::string>& fetches) {
      return evaluate_stateless(sub, fetches, *cpu_, std::chrono::milliseconds(60000));
    };
  }
  return standard.run(partition, ctx);
}

}  // namespace caflow
