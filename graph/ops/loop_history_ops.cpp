// What a while loop's gradient keeps of its forward iterations (TF keeps them on stacks:
// StackV2, StackPushV2, StackPopV2). Here a history is indexed by iteration, so forward
// iterations may run in parallel and push in any order: the backward loop pops iteration n-1
// first, then n-2, ... Each pop frees its value. A _LoopHistory node makes a fresh history in
// every step; the resource goes with the step's last handle.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {

CAFLOW_REGISTER_OP("_LoopHistory").output("handle: resource").attr("elem_type: type")
    .attr("history_name: string = ''").stateful().cheap().set_shape_fn(shape_fns::scalar);
CAFLOW_REGISTER_OP("_LoopHistoryPush").input("handle: resource").input("index: int64")
    .input("value: T").output("output: T").attr("T: type").stateful().cheap()
    .set_shape_fn([](shape_context& c) {
      c.set_output(0, c.input(2));
      return status{};
    });
CAFLOW_REGISTER_OP("_LoopHistoryPop").input("handle: resource").input("index: int64")
    .output("value: elem_type").attr("elem_type: type").stateful().cheap()
    .set_shape_fn(shape_fns::unknown);

}  // namespace caflow
