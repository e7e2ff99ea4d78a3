#pragma once
// Common-subexpression elimination by global value numbering. Two nodes compute the same value
// when they have the same op, attrs (defaults filled in), requested device, data inputs (as a
// multiset for commutative ops) and set of control inputs, where inputs are compared after
// earlier merges: nodes are visited in topological order, so duplicate chains collapse whole
// ((x+y)*2 written twice becomes one Add and one Mul).
//
// Of several equal nodes one stays: the first in definition order (inputs before consumers),
// or the first protected one when that one is not protected. The others are removed and their
// consumers, data and control, read the survivor; protected ones are never removed and keep
// their consumers (computing the value again, as they must to stay).
// Never merged: impure nodes (is_pure in pass.hpp: stateful ops such as variables, random ops,
// _Arg/_Retval/_Send/_Recv; Ref edges; placeholders; control flow).
#include "graph/ir/passes/pass.hpp"

namespace caflow {

class cse_pass final : public graph_pass {
 public:
  std::string name() const override { return "cse"; }
  bool enabled(const optimizer_options& opts) const override {
    return opts.cse && graph_pass::enabled(opts);
  }
  // stats.removed counts the merged nodes.
  status run(graph_def& g, pass_context& ctx, pass_stats& stats) override;
};

}  // namespace caflow
