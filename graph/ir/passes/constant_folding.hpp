#pragma once
// Constant folding: computing once, while optimizing, what every step would compute the same.
//
//   before                                    after
//   Const c1 ─┐
//             Add s ─┐                        Const m ── _Retval      m = (c1 + c2) * c3,
//   Const c2 ─┘      Mul m ── _Retval                                 computed once
//   Const c3 ────────┘
//
// A node is foldable when it is pure (is_pure in pass.hpp), has outputs, and every data and
// control input comes from a foldable node; constants (ops with a constant_value_attr) start
// it. A foldable node whose output has a fully known shape bigger than max_constant_bytes is
// not foldable, so folding never materializes such a tensor.
//
// Each foldable output read by a non-foldable node, or belonging to a protected node, is
// evaluated with pass_context::evaluate and becomes a Const on the producer's device: a node
// with one output is replaced in place under its own name (consumers' inputs keep working,
// control edges included), the output of a node with several gets a new Const named
// "<node>/_folded_<port>". Foldable nodes left without consumers are removed.
//
// Left as they are, to fail or run at run time with their own names:
//   - values larger than max_constant_bytes;
//   - every node of a connected foldable subgraph whose evaluation fails (e.g. a kernel error).
#include "graph/ir/passes/pass.hpp"

namespace caflow {

class constant_folding_pass final : public graph_pass {
 public:
  std::string name() const override { return "constant_folding"; }
  bool enabled(const optimizer_options& opts) const override {
    return opts.constant_folding && graph_pass::enabled(opts);
  }
  // stats.folded counts the outputs now held by Const nodes; stats.removed the nodes of `g`
  // that are gone (a node replaced in place under its own name is not counted).
  status run(graph_def& g, pass_context& ctx, pass_stats& stats) override;
};

}  // namespace caflow
