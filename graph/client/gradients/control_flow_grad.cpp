// Gradients of a cond's primitives, as TF's control_flow_grad: a Switch sends its gradient back
// through a Merge of its two outputs' gradients (the untaken side's is dead, so the Merge
// forwards the taken one); a Merge sends its gradient back to the input it forwarded, through
// a Switch on its value_index. Everything between runs only where the forward branch ran,
// since deadness flows through the gradient nodes as through the forward ones. While loops are
// differentiated as a whole (while_loop_grad.cpp): their Enter, Exit and NextIteration nodes
// never reach a gradient function.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/control_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status switch_grad(const scope& s, const grad_op_info&, const grad_list& dz, grad_list* dx) {
  *dx = {ops::merge(s, {dz[0], dz[1]}).out, output{}};
  return {};
}

status merge_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  const output taken = op.outputs[1];  // value_index
  dx->clear();
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const output is_i = ops::equal(s, taken, ops::constant(s, tensor::scalar<int32_t>(int32_t(i))));
    dx->push_back(ops::switch_(s, dz[0], is_i).output_true);
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Switch", switch_grad);
CAFLOW_REGISTER_GRADIENT("RefSwitch", switch_grad);
CAFLOW_REGISTER_GRADIENT("Merge", merge_grad);
CAFLOW_REGISTER_NO_GRADIENT("LoopCond");

}  // namespace caflow
