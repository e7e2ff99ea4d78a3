// FusedBatchNormV3, FusedBatchNormGradV3, LRN and LRNGrad: client functions (registered in
// graph/ops/nn_norm_ops.cpp).
#include "graph/client/ops/nn_norm_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

node_builder& with_bn_attrs(node_builder& b, const fused_batch_norm_attrs& a) {
  return b.attr("epsilon", a.epsilon)
      .attr("data_format", a.data_format)
      .attr("is_training", a.is_training);
}

node_builder& with_lrn_attrs(node_builder& b, const lrn_attrs& a) {
  return b.attr("depth_radius", a.depth_radius)
      .attr("bias", a.bias)
      .attr("alpha", a.alpha)
      .attr("beta", a.beta);
}

}  // namespace

fused_batch_norm_outputs fused_batch_norm(const scope& s, const output& x, const output& scale,
                                          const output& offset, const output& mean,
                                          const output& variance,
                                          const fused_batch_norm_attrs& attrs) {
  node_builder b(s, "FusedBatchNormV3");
  b.input(x).input(scale).input(offset).input(mean).input(variance);
  const operation op =
      with_bn_attrs(b, attrs).attr("exponential_avg_factor", attrs.exponential_avg_factor)
          .finalize();
  return {op.out(0), op.out(1), op.out(2), op.out(3), op.out(4), op.out(5)};
}

fused_batch_norm_grad_outputs fused_batch_norm_grad(
    const scope& s, const output& y_backprop, const output& x, const output& scale,
    const output& reserve_space_1, const output& reserve_space_2, const output& reserve_space_3,
    const fused_batch_norm_attrs& attrs) {
  node_builder b(s, "FusedBatchNormGradV3");
  b.input(y_backprop).input(x).input(scale).input(reserve_space_1).input(reserve_space_2)
      .input(reserve_space_3);
  const operation op = with_bn_attrs(b, attrs).finalize();
  return {op.out(0), op.out(1), op.out(2), op.out(3), op.out(4)};
}

output lrn(const scope& s, const output& input, const lrn_attrs& attrs) {
  node_builder b(s, "LRN");
  b.input(input);
  return with_lrn_attrs(b, attrs).finalize().out();
}

output lrn_grad(const scope& s, const output& input_grads, const output& input_image,
                const output& output_image, const lrn_attrs& attrs) {
  node_builder b(s, "LRNGrad");
  b.input(input_grads).input(input_image).input(output_image);
  return with_lrn_attrs(b, attrs).finalize().out();
}

}  // namespace ops
}  // namespace caflow
