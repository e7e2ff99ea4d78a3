// Gradients of the debugging ops (graph/client/ops/debug_ops.hpp), as TensorFlow defines
// them: Print passes its input's gradient through and gives the printed data none; Assert has
// no outputs and no gradient.
#include "graph/client/gradients/gradients.hpp"

namespace caflow {
namespace {

status print_grad(const scope&, const grad_op_info& op, const std::vector<output>& dy,
                  std::vector<output>* dx) {
  dx->assign(op.inputs.size(), output{});
  (*dx)[0] = dy[0];
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Print", print_grad);
CAFLOW_REGISTER_NO_GRADIENT("Assert");

}  // namespace caflow
