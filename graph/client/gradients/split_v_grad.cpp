// SplitV's gradient (graph/client/ops/split_v_ops.hpp): the pieces' gradients joined back
// along the split dimension, as TensorFlow's array_grad.py does.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/array_ops.hpp"

namespace caflow {
namespace {

status split_v_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dy,
                    std::vector<output>* dx) {
  *dx = {dy.size() == 1 ? dy[0] : ops::concat(s, dy, op.inputs[2]), output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("SplitV", split_v_grad);

}  // namespace caflow
