#pragma once
// Graph optimization passes: rewrites of a pruned graph that keep every fetched value and every
// side effect, and make the graph cheaper to run.
//
//   pruned graph ──▶ cse ──▶ constant_folding ──▶ (place, partition, executor)
//
// A pass takes a graph_def that graph::build accepts and leaves one that graph::build accepts.
// It never renames or removes a node named in pass_context::protected_nodes (the run's feeds,
// fetches and targets, and every stateful node: _Arg, _Retval, _Send, _Recv, variables), so
// the run signature and the call frame still line up after the pipeline.
//
// How a session runs the pipeline, once per run signature, between pruning and building the
// executor (session::impl::prepare):
//
//   CAFLOW_ASSIGN_OR_RETURN(pruned_graph pruned, prune_for_run(*full_, sig));
//   pass_context ctx;
//   ctx.options = opts_.optimizer;                           // an optimizer_options member
//   ctx.protected_nodes = protected_nodes_for(pruned.def, sig);
//   ctx.evaluate = [this](const graph_def& sub, const std::vector<std::string>& fetches)
//       -> status_or<std::vector<tensor>> {
//     // Once, on the host CPU, outside the kernel cache (folded nodes are stateless) and
//     // without taking the session's lock again.
//     CAFLOW_ASSIGN_OR_RETURN(graph whole, graph::build(sub));
//     CAFLOW_ASSIGN_OR_RETURN(pruned_graph p, prune_for_run(whole, run_signature{{}, fetches,
//     {}})); CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(p.def), {.infer_shapes =
//     false})); CAFLOW_ASSIGN_OR_RETURN(auto exec,
//                             executor::create(std::make_shared<const graph>(std::move(g)), cpu_));
//     call_frame frame;
//     frame.rets.resize(fetches.size());
//     cancellation_manager cancel;
//     CAFLOW_RETURN_IF_ERROR(exec->run({0, &frame, &cancel, nullptr}, opts_.operation_timeout));
//     return std::move(frame.rets);
//   };
//   CAFLOW_ASSIGN_OR_RETURN(std::vector<pass_stats> stats,
//                           pass_pipeline::standard().run(pruned.def, ctx));
//   CAFLOW_ASSIGN_OR_RETURN(graph g, graph::build(std::move(pruned.def), {.infer_shapes = false}));
//
// (tests/graph/ir/passes/constant_folding_test.cpp runs exactly this evaluator.) pass_pipeline::run is
// const and the standard passes keep no state, so one pipeline may serve every signature and
// thread. An error from the pipeline means a bug in a pass, not in the user's graph: a graph
// that graph::build accepted always optimizes, and kernel errors met while folding are left
// for the step to report.
//
// pruned.feed_types, feed_shapes and fetch_types stay valid: passes keep every _Arg and
// _Retval node as it is, and a folded value has the dtype of the output it replaces.
//
// Adding a pass: one class deriving from graph_pass, and one line in pass_pipeline::standard().
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/graph.hpp"
#include "graph/ir/prune.hpp"

namespace caflow {

struct optimizer_options {
  bool cse = true;
  bool constant_folding = true;
  // A folded value larger than this stays computed at run time, so graphs (and the messages
  // that carry them to workers) do not balloon.
  int64_t max_constant_bytes = 10 << 20;
  // Names of further passes to skip (graph_pass::name()), for passes without a flag above.
  std::set<std::string, std::less<>> disabled{};  // {} lets designated initializers omit it
};

// What one pass did. `removed` counts nodes of the input graph that are gone; `folded` counts
// tensors now held by Const nodes. nodes_after = nodes_before - removed + new Const nodes.
struct pass_stats {
  std::string pass;
  int64_t nodes_before = 0;
  int64_t nodes_after = 0;
  int64_t removed = 0;
  int64_t folded = 0;
};

// Evaluates `subgraph` (stateless nodes only, no device requests, no '_' annotations) and
// returns one tensor per entry of `fetches` ("node" or "node:port"). Supplied by the runtime
// because graph/ knows no kernels. An error leaves the nodes concerned unfolded.
using subgraph_evaluator = std::function<status_or<std::vector<tensor>>(
    const graph_def& subgraph, const std::vector<std::string>& fetches)>;

struct pass_context {
  optimizer_options options;
  std::set<std::string, std::less<>> protected_nodes;
  // Empty: constant folding has nothing to evaluate with and leaves the graph as it is.
  subgraph_evaluator evaluate;

  bool is_protected(std::string_view node) const { return protected_nodes.contains(node); }

  // The built graph of `g`, the definition the pipeline is rewriting, with inferred shapes
  // where inference succeeds. Built on first use and shared by the passes that follow until
  // one changes the definition: building a graph costs more than most passes, and each pass
  // used to build its own copy.
  status_or<const graph*> built(const graph_def& g);
  // `g` changed: the next built() builds again. The pipeline calls it after a pass that
  // removed or folded nodes (the passes change nothing else without saying so). A pass run on
  // another definition than the last built() was asked for builds again by itself.
  void forget_built() {
    built_.reset();
    built_for_ = nullptr;
  }

 private:
  std::optional<graph> built_;
  const graph_def* built_for_ = nullptr;
};

class graph_pass {
 public:
  virtual ~graph_pass() = default;
  // Short and stable: it names the pass in stats, logs and optimizer_options::disabled.
  virtual std::string name() const = 0;
  // Whether `opts` ask for this pass. Passes with a flag of their own also check that flag.
  virtual bool enabled(const optimizer_options& opts) const {
    return !opts.disabled.contains(name());
  }
  // Rewrites `g`. REQUIRES: graph::build accepts `g`. On error `g` may be partly rewritten;
  // the pipeline discards it.
  virtual status run(graph_def& g, pass_context& ctx, pass_stats& stats) = 0;
};

class pass_pipeline {
 public:
  // cse, then constant_folding. (The runtime appends the remapper, graph/ir/passes/remapper.hpp:
  // actors/executor/graph_optimizer.hpp's runtime_pipeline.)
  static pass_pipeline standard();

  pass_pipeline() = default;
  pass_pipeline(pass_pipeline&&) noexcept = default;
  pass_pipeline& operator=(pass_pipeline&&) noexcept = default;

  pass_pipeline& add(std::unique_ptr<graph_pass> pass);
  std::vector<std::string> pass_names() const;

  // Runs every enabled pass in order and returns the stats of each one that ran. `g` is
  // replaced only when all succeed. A pass that drops a protected node is reported as an
  // internal error naming the pass and the node.
  status_or<std::vector<pass_stats>> run(graph_def& g, pass_context& ctx) const;

 private:
  std::vector<std::unique_ptr<graph_pass>> passes_;
};

// The nodes a session's passes must keep: the nodes of the feeds, fetches and targets of
// `sig`, and every node of `pruned` whose op is stateful (which takes in _Arg, _Retval, _Send
// and _Recv).
std::set<std::string, std::less<>> protected_nodes_for(const graph_def& pruned,
                                                       const run_signature& sig);

// "cse: 12 -> 9 nodes (3 removed); constant_folding: 9 -> 4 nodes (6 removed, 1 folded)"
std::string summarize(const std::vector<pass_stats>& stats);

// --- node properties the passes share ---
// True when an input or output of `n` is a Ref: the node reads or writes mutable state in place.
bool has_ref_edge(const graph_node& n);
// Placeholder and PlaceholderWithDefault: values fed from outside, so two of them are different
// values however alike they look, and a default is not a constant.
bool is_feed_point(const node_def& n);
// TensorFlow's control-flow primitives (Switch, Merge, Enter, Exit, NextIteration, LoopCond and
// their Ref forms, ControlTrigger), whose outputs depend on frames and iterations rather than on
// their inputs alone. op_def has no flag for them, so they are known by name.
bool is_control_flow(const node_def& n);
// A node whose outputs depend on its inputs and attrs alone: not stateful, no Ref edge, not a
// feed point, not control flow.
bool is_pure(const graph_node& n);
// Node ids in definition order, except that every node comes after its data and control
// inputs. Unlike graph::topo_order it is stable, so a pass that keeps "the first of several"
// keeps the one defined first.
std::vector<int> definition_topo_order(const graph& g);

}  // namespace caflow
