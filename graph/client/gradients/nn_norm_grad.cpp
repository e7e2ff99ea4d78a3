// Gradients of the normalization ops (graph/client/ops/nn_norm_ops.hpp), as TensorFlow's
// nn_grad.py defines them: FusedBatchNormV3's is FusedBatchNormGradV3, whose own gradient
// (second order) differentiates the backward formulas written out in primitive ops; LRN's is
// LRNGrad. The mean and variance inputs get none, as in TF.
#include <numeric>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_norm_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status bn_attrs_of(const grad_op_info& op, ops::fused_batch_norm_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("epsilon", &a->epsilon));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("data_format", &a->data_format));
  return op.get_attr("is_training", &a->is_training);
}

// Training: the batch statistics the forward op saved (outputs 3 and 4); inference: the
// population statistics it was given (inputs 3 and 4). FusedBatchNorm and FusedBatchNormV2
// have their own gradient ops, without reserve_space_3.
status fused_batch_norm_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                             grad_list* dx) {
  ops::fused_batch_norm_attrs a;
  CAFLOW_RETURN_IF_ERROR(bn_attrs_of(op, &a));
  const output mean = a.is_training ? op.outputs[3] : op.inputs[3];
  const output var = a.is_training ? op.outputs[4] : op.inputs[4];
  if (op.def.op == "FusedBatchNormV3") {
    const auto g = ops::fused_batch_norm_grad(s, dy[0], op.inputs[0], op.inputs[1], mean, var,
                                              op.outputs[5], a);
    *dx = {g.x_backprop, g.scale_backprop, g.offset_backprop, output{}, output{}};
    return {};
  }
  const operation g = node_builder(s, op.def.op == "FusedBatchNorm" ? "FusedBatchNormGrad"
                                                                    : "FusedBatchNormGradV2")
                          .input(dy[0]).input(op.inputs[0]).input(op.inputs[1]).input(mean)
                          .input(var).attr("epsilon", a.epsilon)
                          .attr("data_format", a.data_format).attr("is_training", a.is_training)
                          .finalize();
  *dx = {g.out(0), g.out(1), g.out(2), output{}, output{}};
  return {};
}

// FusedBatchNormGradV3's outputs written in differentiable ops (TF's _BatchNormGrad), then
// differentiated with respect to dy, x and scale, weighted by the incoming gradients.
status fused_batch_norm_grad_grad(const scope& s, const grad_op_info& op, const grad_list& dz,
                                  grad_list* dx) {
  ops::fused_batch_norm_attrs a;
  CAFLOW_RETURN_IF_ERROR(bn_attrs_of(op, &a));
  const output &dy = op.inputs[0], &x = op.inputs[1], &scale = op.inputs[2];
  const partial_shape sx = s.shape_of(x);
  if (!sx.rank_known())
    return errors::invalid_argument("the gradient of ", op.def.name,
                                    " (FusedBatchNormGradV3) needs the rank of x");
  std::vector<int> axes(static_cast<size_t>(sx.rank() - 1));
  std::iota(axes.begin(), axes.end(), 0);
  const output eps = grad::scalar(s, x.type, a.epsilon);
  output gx, gscale;
  const output goffset = ops::sum(s, dy, axes);
  if (a.is_training) {
    const output mean_x = ops::mean(s, x, axes);
    const output var_x =
        ops::mean(s, ops::square(s, ops::sub(s, x, ops::stop_gradient(s, mean_x))), axes);
    const output x_off = ops::sub(s, x, mean_x);
    const output dy_off = ops::sub(s, dy, ops::mean(s, dy, axes));
    const output m = ops::mean(s, ops::mul(s, dy, x_off), axes);
    const output var_eps = ops::add(s, var_x, eps);
    const output inv = ops::rsqrt(s, var_eps);
    gx = ops::mul(s, ops::mul(s, scale, inv),
                  ops::sub(s, dy_off,
                           ops::mul(s, ops::mul(s, ops::reciprocal(s, var_eps), m), x_off)));
    gscale = ops::mul(s, inv, ops::sum(s, ops::mul(s, dy, x_off), axes));
  } else {
    const output inv = ops::rsqrt(s, ops::add(s, op.inputs[4], eps));
    gx = ops::mul(s, dy, ops::mul(s, scale, inv));
    gscale = ops::sum(s, ops::mul(s, ops::mul(s, dy, ops::sub(s, x, op.inputs[3])), inv), axes);
  }
  grad_list second;
  CAFLOW_RETURN_IF_ERROR(add_symbolic_gradients(s, {gx, gscale, goffset}, {dy, x, scale},
                                                {dz[0], dz[1], dz[2]}, &second));
  *dx = {second[0], second[1], second[2]};
  dx->resize(op.inputs.size());  // no gradient for the statistics (and reserve_space_3)
  return {};
}

status lrn_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  ops::lrn_attrs a;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("depth_radius", &a.depth_radius));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("bias", &a.bias));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("alpha", &a.alpha));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("beta", &a.beta));
  *dx = {ops::lrn_grad(s, dy[0], op.inputs[0], op.outputs[0], a)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("FusedBatchNorm", fused_batch_norm_grad);
CAFLOW_REGISTER_GRADIENT("FusedBatchNormV2", fused_batch_norm_grad);
CAFLOW_REGISTER_GRADIENT("FusedBatchNormV3", fused_batch_norm_grad);
CAFLOW_REGISTER_GRADIENT("FusedBatchNormGrad", fused_batch_norm_grad_grad);
CAFLOW_REGISTER_GRADIENT("FusedBatchNormGradV2", fused_batch_norm_grad_grad);
CAFLOW_REGISTER_GRADIENT("FusedBatchNormGradV3", fused_batch_norm_grad_grad);
CAFLOW_REGISTER_GRADIENT("LRN", lrn_grad);

}  // namespace caflow
