// MaxPool3D, AvgPool3D and their gradients: client functions (registered in
// graph/ops/pool3d_ops.cpp).
#include "graph/client/ops/pool3d_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

node_builder& with_attrs(node_builder& b, const pool3d_attrs& a) {
  return b.attr("ksize", a.ksize)
      .attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("data_format", a.data_format);
}

output build(const scope& s, const char* op, const std::vector<output>& inputs,
             const pool3d_attrs& a) {
  node_builder b(s, op);
  for (const output& in : inputs) b.input(in);
  return with_attrs(b, a).finalize().out();
}

}  // namespace

output max_pool3d(const scope& s, const output& input, const pool3d_attrs& attrs) {
  return build(s, "MaxPool3D", {input}, attrs);
}
output avg_pool3d(const scope& s, const output& input, const pool3d_attrs& attrs) {
  return build(s, "AvgPool3D", {input}, attrs);
}
output max_pool3d_grad(const scope& s, const output& orig_input, const output& orig_output,
                       const output& grad, const pool3d_attrs& attrs) {
  return build(s, "MaxPool3DGrad", {orig_input, orig_output, grad}, attrs);
}
output avg_pool3d_grad(const scope& s, const output& orig_input_shape, const output& grad,
                       const pool3d_attrs& attrs) {
  return build(s, "AvgPool3DGrad", {orig_input_shape, grad}, attrs);
}
output max_pool3d_grad_grad(const scope& s, const output& orig_input, const output& orig_output,
                            const output& grad, const pool3d_attrs& attrs) {
  return build(s, "MaxPool3DGradGrad", {orig_input, orig_output, grad}, attrs);
}

}  // namespace ops
}  // namespace caflow
