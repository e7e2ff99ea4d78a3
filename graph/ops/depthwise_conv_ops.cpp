// DepthwiseConv2dNative, its backprops and its fused forms (_FusedDepthwiseConv2dNative,
// grappler's, and FusedDepthwiseConv2dNative, the TF.js converter's, alike): registrations and
// shape functions. The window arithmetic is graph/util/depthwise_geometry.hpp, shared with the
// kernels.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/conv_sizes_input.hpp"
#include "graph/ops/fused_op_shapes.hpp"
#include "graph/util/depthwise_geometry.hpp"

namespace caflow {
namespace {

using ops_detail::image_sizes_input;

status_or<conv2d_params> params_of(const shape_context& c) {
  auto p = parse_conv2d_params(c.node());
  if (!p.ok()) return c.error(p.get_status().message());
  return p;
}

status_or<partial_shape> output_shape(const shape_context& c, const conv2d_params& p,
                                      const partial_shape& input, const partial_shape& filter) {
  auto out = depthwise_output_shape(p, input, filter);
  if (!out.ok()) return c.error(out.get_status().message());
  return out;
}

status check_out_backprop(const shape_context& c, const partial_shape& expected) {
  if (!c.input(2).compatible_with(expected))
    return c.error("out_backprop has shape ", c.input(2).to_string(), " but the input and filter",
                   " give ", expected.to_string());
  return {};
}

status depthwise_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const conv2d_params p, params_of(c));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_shape(c, p, c.input(0), c.input(1)));
  c.set_output(0, out);
  return {};
}

status fused_depthwise_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const conv2d_params p, params_of(c));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_shape(c, p, c.input(0), c.input(1)));
  c.set_output(0, out);
  const int64_t channels = out.rank_known() ? out.dim(image_layout_of(p.nchw).c) : -1;
  return ops_detail::check_fused_args(c, /*batch_norm_allowed=*/true, 2, channels);
}

status depthwise_backprop_input_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const conv2d_params p, params_of(c));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape input, image_sizes_input(c, 0, "input_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape expected, output_shape(c, p, input, c.input(1)));
  CAFLOW_RETURN_IF_ERROR(check_out_backprop(c, expected));
  c.set_output(0, input);
  return {};
}

status depthwise_backprop_filter_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const conv2d_params p, params_of(c));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape filter, image_sizes_input(c, 1, "filter_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape expected, output_shape(c, p, c.input(0), filter));
  CAFLOW_RETURN_IF_ERROR(check_out_backprop(c, expected));
  c.set_output(0, filter);
  return {};
}

}  // namespace

#define CAFLOW_DEPTHWISE_ATTRS                                                            \
  attr("T: {float32, float64}")                                                           \
      .attr("strides: list(int)")                                                         \
      .attr("padding: string")                                                            \
      .attr("explicit_paddings: list(int) = []")                                          \
      .attr("data_format: string = 'NHWC'")                                               \
      .attr("dilations: list(int) = [1, 1, 1, 1]")

CAFLOW_REGISTER_OP("DepthwiseConv2dNative")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .CAFLOW_DEPTHWISE_ATTRS.set_shape_fn(depthwise_shape);
CAFLOW_REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .input("input_sizes: int32")
    .input("filter: T")
    .input("out_backprop: T")
    .output("output: T")
    .CAFLOW_DEPTHWISE_ATTRS.set_shape_fn(depthwise_backprop_input_shape);
CAFLOW_REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .input("input: T")
    .input("filter_sizes: int32")
    .input("out_backprop: T")
    .output("output: T")
    .CAFLOW_DEPTHWISE_ATTRS.set_shape_fn(depthwise_backprop_filter_shape);

#define CAFLOW_FUSED_DEPTHWISE_OP(name)           \
  CAFLOW_REGISTER_OP(name)                        \
      .input("input: T")                          \
      .input("filter: T")                         \
      .input("args: num_args * T")                \
      .output("output: T")                        \
      .attr("num_args: int >= 0")                 \
      .attr("fused_ops: list(string) = []")       \
      .attr("epsilon: float = 0.0001")            \
      .attr("leakyrelu_alpha: float = 0.2")       \
      .CAFLOW_DEPTHWISE_ATTRS.set_shape_fn(fused_depthwise_shape)
CAFLOW_FUSED_DEPTHWISE_OP("_FusedDepthwiseConv2dNative");
CAFLOW_FUSED_DEPTHWISE_OP("FusedDepthwiseConv2dNative");
#undef CAFLOW_FUSED_DEPTHWISE_OP

#undef CAFLOW_DEPTHWISE_ATTRS

}  // namespace caflow
