#include "graph/client/ops/conv_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

node_builder& with_conv_attrs(node_builder& b, const conv2d_attrs& a) {
  return b.attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("explicit_paddings", a.explicit_paddings)
      .attr("data_format", a.data_format)
      .attr("dilations", a.dilations);
}

node_builder& with_pool_attrs(node_builder& b, const pool_attrs& a) {
  return b.attr("ksize", a.ksize)
      .attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("data_format", a.data_format);
}

}  // namespace

output conv2d(const scope& s, const output& input, const output& filter,
              const conv2d_attrs& attrs) {
  node_builder b(s, "Conv2D");
  b.input(input).input(filter);
  return with_conv_attrs(b, attrs).finalize().out();
}

output conv2d_backprop_input(const scope& s, const output& input_sizes, const output& filter,
                             const output& out_backprop, const conv2d_attrs& attrs) {
  node_builder b(s, "Conv2DBackpropInput");
  b.input(input_sizes).input(filter).input(out_backprop);
  return with_conv_attrs(b, attrs).finalize().out();
}

output conv2d_backprop_filter(const scope& s, const output& input, const output& filter_sizes,
                              const output& out_backprop, const conv2d_attrs& attrs) {
  node_builder b(s, "Conv2DBackpropFilter");
  b.input(input).input(filter_sizes).input(out_backprop);
  return with_conv_attrs(b, attrs).finalize().out();
}

output max_pool(const scope& s, const output& value, const pool_attrs& attrs) {
  node_builder b(s, "MaxPool");
  b.input(value);
  return with_pool_attrs(b, attrs).finalize().out();
}

output max_pool_grad(const scope& s, const output& orig_input, const output& orig_output,
                     const output& grad, const pool_attrs& attrs) {
  node_builder b(s, "MaxPoolGrad");
  b.input(orig_input).input(orig_output).input(grad);
  return with_pool_attrs(b, attrs).finalize().out();
}

output max_pool_grad_grad(const scope& s, const output& orig_input, const output& orig_output,
                          const output& grad, const pool_attrs& attrs) {
  node_builder b(s, "MaxPoolGradGrad");
  b.input(orig_input).input(orig_output).input(grad);
  return with_pool_attrs(b, attrs).finalize().out();
}

output avg_pool(const scope& s, const output& value, const pool_attrs& attrs) {
  node_builder b(s, "AvgPool");
  b.input(value);
  return with_pool_attrs(b, attrs).finalize().out();
}

output avg_pool_grad(const scope& s, const output& orig_input_shape, const output& grad,
                     const pool_attrs& attrs) {
  node_builder b(s, "AvgPoolGrad");
  b.input(orig_input_shape).input(grad);
  return with_pool_attrs(b, attrs).finalize().out();
}

}  // namespace ops
}  // namespace caflow
