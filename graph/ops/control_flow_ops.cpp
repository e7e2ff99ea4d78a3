// The control-flow ops, TensorFlow 1.x's signatures (but RefMerge: op specs have no lists of
// references yet). They only move values (and references)
// between frames, iterations and branches, so none is pure for the graph passes (see
// is_control_flow in graph/ir/passes/pass.hpp) and all are cheap.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status switch_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  c.set_output(0, c.input(0));
  c.set_output(1, c.input(0));
  return {};
}

// The most specific shape every input fits: dims that differ become unknown, and differing
// ranks give an unknown shape, as TF's Merge.
status merge_shape(shape_context& c) {
  partial_shape out = c.input(0);
  for (int i = 1; i < c.num_inputs() && out.rank_known(); ++i) {
    const partial_shape& in = c.input(i);
    if (!in.rank_known() || in.rank() != out.rank()) {
      out = partial_shape::unknown();
      break;
    }
    std::vector<int64_t> dims = out.dim_vector();
    const std::vector<int64_t> other = in.dim_vector();
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d] != other[d]) dims[d] = -1;
    CAFLOW_ASSIGN_OR_RETURN(out, partial_shape::make(dims));
  }
  c.set_output(0, out);
  c.set_output(1, partial_shape{});
  return {};
}

status loop_cond_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  c.set_output(0, partial_shape{});
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Switch").input("data: T").input("pred: bool").output("output_false: T")
    .output("output_true: T").attr("T: type").cheap().set_shape_fn(switch_shape);
CAFLOW_REGISTER_OP("RefSwitch").input("data: Ref(T)").input("pred: bool")
    .output("output_false: Ref(T)").output("output_true: Ref(T)").attr("T: type").cheap()
    .set_shape_fn(switch_shape);
CAFLOW_REGISTER_OP("Merge").input("inputs: N * T").output("output: T")
    .output("value_index: int32").attr("T: type").attr("N: int >= 1").cheap()
    .set_shape_fn(merge_shape);
CAFLOW_REGISTER_OP("Enter").input("data: T").output("output: T").attr("T: type")
    .attr("frame_name: string").attr("is_constant: bool = false")
    .attr("parallel_iterations: int = 10").cheap().set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("RefEnter").input("data: Ref(T)").output("output: Ref(T)").attr("T: type")
    .attr("frame_name: string").attr("is_constant: bool = false")
    .attr("parallel_iterations: int = 10").cheap().set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("Exit").input("data: T").output("output: T").attr("T: type").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("RefExit").input("data: Ref(T)").output("output: Ref(T)").attr("T: type")
    .cheap().set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("NextIteration").input("data: T").output("output: T").attr("T: type")
    .cheap().set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("RefNextIteration").input("data: Ref(T)").output("output: Ref(T)")
    .attr("T: type").cheap().set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("LoopCond").input("input: bool").output("output: bool").cheap()
    .set_shape_fn(loop_cond_shape);
CAFLOW_REGISTER_OP("ControlTrigger").cheap();

}  // namespace caflow
