// Gradients of ReverseV2, Reverse, ReverseSequence, Roll and BroadcastTo (graph/client/ops/reverse_ops.hpp), as
// TensorFlow's array_grad.py defines them: reversing the gradient back, and summing it over the
// broadcast dimensions. InvertPermutation and BroadcastArgs compute on integers: no gradient.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reverse_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status reverse_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {ops::reverse(s, dy[0], op.inputs[1]), output{}};
  return {};
}

status broadcast_to_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                         grad_list* dx) {
  *dx = {grad::unbroadcast(s, op.inputs[0], op.outputs[0]).x_grad(dy[0]), output{}};
  return {};
}

status reverse_sequence_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                             grad_list* dx) {
  int64_t seq_dim = 0, batch_dim = 0;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("seq_dim", &seq_dim));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("batch_dim", &batch_dim));
  *dx = {ops::reverse_sequence(s, dy[0], op.inputs[1], seq_dim, {.batch_dim = batch_dim}),
         output{}};
  return {};
}

status reverse_v1_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  *dx = {ops::reverse_v1(s, dy[0], op.inputs[1]), output{}};
  return {};
}

// Rolling back by the negated shifts.
status roll_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  *dx = {ops::roll(s, dy[0], ops::neg(s, op.inputs[1]), op.inputs[2]), output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Reverse", reverse_v1_grad);
CAFLOW_REGISTER_GRADIENT("Roll", roll_grad);
CAFLOW_REGISTER_GRADIENT("ReverseV2", reverse_grad);
CAFLOW_REGISTER_GRADIENT("ReverseSequence", reverse_sequence_grad);
CAFLOW_REGISTER_GRADIENT("BroadcastTo", broadcast_to_grad);

}  // namespace caflow
