#pragma once
// The gradient of a while loop (TF's GradLoopState, with an indexed history in place of stacks).
//
// Forward, the loop gains an iteration counter, and each forward value the body's gradient
// reads is pushed, in the iteration that makes it, into a loop history under that iteration's
// index (_LoopHistoryPush). The counter's increment waits on the iteration's pushes, so the
// count leaves the loop only after every push.
//
// Backward, a second loop runs as many iterations as the forward one did, in reverse: iteration
// t pops the values of forward iteration n-1-t (_LoopHistoryPop, which frees them) and runs the
// body's gradient on them. Its loop variables are the count, the gradients of the forward loop
// variables, and one accumulator per float value the body read from outside the loop. When it
// ends, the loop variables' gradients are those of the values the forward loop started from,
// and the accumulators those of the outside values.
#include <string>
#include <vector>

#include "graph/client/gradients/gradients.hpp"
#include "graph/ir/control_flow.hpp"
#include "graph/ir/graph.hpp"

namespace caflow::grad {

// A while loop as ops::while_loop builds it, found in a graph. Per loop variable: its Enter,
// Merge, Switch, Exit, the Identity that gives it to the body, and the NextIteration that
// takes the body's result back.
struct while_loop_nodes {
  std::string frame;
  int frame_index = 0;
  int64_t parallel_iterations = 10;
  std::vector<int> enters, merges, switches, exits, idents, nexts;
  std::vector<int> constant_enters;  // values the body reads from outside
  int loop_cond = -1;
};

// The loops directly inside frame `parent` (0: the root). Errors name a loop that is not built
// the way ops::while_loop builds them.
status_or<std::vector<while_loop_nodes>> find_while_loops(const graph& g,
                                                          const control_flow_info& cf, int parent);

// `dys`: one gradient per loop variable, invalid where none flows. `dxs`: one per loop
// variable (for the value it started from), then one per constant Enter (for the outside
// value), invalid for non-float ones.
status while_loop_gradient(const scope& s, const graph& g, const control_flow_info& cf,
                           const while_loop_nodes& loop, const std::vector<output>& dys,
                           std::vector<output>* dxs);

}  // namespace caflow::grad
