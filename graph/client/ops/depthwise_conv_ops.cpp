// DepthwiseConv2dNative and its backprops: client functions (registered in
// graph/ops/depthwise_conv_ops.cpp).
#include "graph/client/ops/depthwise_conv_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

node_builder& with_attrs(node_builder& b, const conv2d_attrs& a) {
  return b.attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("explicit_paddings", a.explicit_paddings)
      .attr("data_format", a.data_format)
      .attr("dilations", a.dilations);
}

}  // namespace

output depthwise_conv2d_native(const scope& s, const output& input, const output& filter,
                               const conv2d_attrs& attrs) {
  node_builder b(s, "DepthwiseConv2dNative");
  b.input(input).input(filter);
  return with_attrs(b, attrs).finalize().out();
}

output depthwise_conv2d_native_backprop_input(const scope& s, const output& input_sizes,
                                              const output& filter, const output& out_backprop,
                                              const conv2d_attrs& attrs) {
  node_builder b(s, "DepthwiseConv2dNativeBackpropInput");
  b.input(input_sizes).input(filter).input(out_backprop);
  return with_attrs(b, attrs).finalize().out();
}

output depthwise_conv2d_native_backprop_filter(const scope& s, const output& input,
                                               const output& filter_sizes,
                                               const output& out_backprop,
                                               const conv2d_attrs& attrs) {
  node_builder b(s, "DepthwiseConv2dNativeBackpropFilter");
  b.input(input).input(filter_sizes).input(out_backprop);
  return with_attrs(b, attrs).finalize().out();
}

}  // namespace ops
}  // namespace caflow
