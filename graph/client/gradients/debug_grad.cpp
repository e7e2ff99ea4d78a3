// Gradients of the debugging ops (graph/client/ops/debug_ops.hpp), as TensorFlow defines
// them: Print passes its input's gradient through and gives the printed data none; Assert has
// no outputs and no gradient; CheckNumerics checks the gradient too; EnsureShape, IdentityN and
// Snapshot pass it through; PreventGradient refuses.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/debug_ops.hpp"

namespace caflow {
namespace {

status print_grad(const scope&, const grad_op_info& op, const std::vector<output>& dy,
                  std::vector<output>* dx) {
  dx->assign(op.inputs.size(), output{});
  (*dx)[0] = dy[0];
  return {};
}

status check_numerics_grad(const scope& s, const grad_op_info& op,
                           const std::vector<output>& dy, std::vector<output>* dx) {
  std::string message;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("message", &message));
  *dx = {ops::check_numerics(
      s, dy[0], "Not a number (NaN) or infinity (Inf) values detected in gradient. " + message)};
  return {};
}

status pass_through_grad(const scope&, const grad_op_info&, const std::vector<output>& dy,
                         std::vector<output>* dx) {
  *dx = dy;
  return {};
}

status prevent_gradient_grad(const scope&, const grad_op_info& op, const std::vector<output>&,
                             std::vector<output>*) {
  std::string message;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("message", &message));
  return errors::invalid_argument("gradient explicitly disabled by node '", op.def.name,
                                  "' (PreventGradient)", message.empty() ? "" : ": ", message);
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Print", print_grad);
CAFLOW_REGISTER_GRADIENT("CheckNumerics", check_numerics_grad);
CAFLOW_REGISTER_GRADIENT("EnsureShape", pass_through_grad);
CAFLOW_REGISTER_GRADIENT("IdentityN", pass_through_grad);
CAFLOW_REGISTER_GRADIENT("Snapshot", pass_through_grad);
CAFLOW_REGISTER_GRADIENT("PreventGradient", prevent_gradient_grad);
CAFLOW_REGISTER_NO_GRADIENT("Assert");

}  // namespace caflow
