// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D and the 2-D pools (MaxPool,
// MaxPoolGrad, MaxPoolGradGrad, AvgPool, AvgPoolGrad): registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ops/conv_sizes_input.hpp"
#include "graph/ops/fused_op_shapes.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow {
namespace {

using ops_detail::image_sizes_input;

// Errors from the shared helpers, prefixed with the node as shape functions report them.
status in_node(const shape_context& c, const status& st) {
  return st.with_context(describe_node(c.node()));
}

// The window count along one dimension, or -1 when the input or window size is unknown.
status_or<int64_t> output_dim(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                              conv_padding padding, int64_t before, int64_t after) {
  if (in < 0 || k < 0) return int64_t{-1};
  CAFLOW_ASSIGN_OR_RETURN(window_dim d,
                          windowed_output_size(in, k, dilation, stride, padding, before, after));
  return d.out;
}

status require_rank4(const shape_context& c, int i, const char* what) {
  if (c.input(i).rank_known() && c.input(i).rank() != 4)
    return c.error(what, " must be 4-dimensional, got shape ", c.input(i).to_string());
  return {};
}

// Conv2D's output shape (in the data format's order) for partially known input and filter.
status_or<partial_shape> conv_output_shape(const shape_context& c, const conv2d_params& p,
                                           const partial_shape& input,
                                           const partial_shape& filter) {
  const image_layout l = image_layout_of(p.nchw);
  const int64_t depth = input.dim_or_unknown(l.c), filter_depth = filter.dim_or_unknown(2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    return c.error("input and filter must have the same depth: ", depth, " vs ", filter_depth,
                   " (input ", input.to_string(), ", filter ", filter.to_string(), ")");
  auto rows = output_dim(input.dim_or_unknown(l.h), filter.dim_or_unknown(0), p.dilation_rows,
                         p.stride_rows, p.padding, p.explicit_pads[0], p.explicit_pads[1]);
  if (!rows.ok())
    return c.error(rows.get_status().message(), " (rows of input ", input.to_string(), ", filter ",
                   filter.to_string(), ")");
  auto cols = output_dim(input.dim_or_unknown(l.w), filter.dim_or_unknown(1), p.dilation_cols,
                         p.stride_cols, p.padding, p.explicit_pads[2], p.explicit_pads[3]);
  if (!cols.ok())
    return c.error(cols.get_status().message(), " (columns of input ", input.to_string(),
                   ", filter ", filter.to_string(), ")");
  std::vector<int64_t> out(4);
  out[l.n] = input.dim_or_unknown(l.n);
  out[l.h] = *rows;
  out[l.w] = *cols;
  out[l.c] = filter.dim_or_unknown(3);
  return partial_shape(out);
}

status_or<partial_shape> pool_output_shape(const shape_context& c, const pool_params& p,
                                           const partial_shape& input) {
  const image_layout l = image_layout_of(p.nchw);
  auto rows =
      output_dim(input.dim_or_unknown(l.h), p.window_rows, 1, p.stride_rows, p.padding, 0, 0);
  if (!rows.ok())
    return c.error(rows.get_status().message(), " (rows of input ", input.to_string(), ")");
  auto cols =
      output_dim(input.dim_or_unknown(l.w), p.window_cols, 1, p.stride_cols, p.padding, 0, 0);
  if (!cols.ok())
    return c.error(cols.get_status().message(), " (columns of input ", input.to_string(), ")");
  std::vector<int64_t> out(4);
  out[l.n] = input.dim_or_unknown(l.n);
  out[l.h] = *rows;
  out[l.w] = *cols;
  out[l.c] = input.dim_or_unknown(l.c);
  return partial_shape(out);
}

// `actual` must agree with `expected` wherever both are known.
status require_compatible(const shape_context& c, const partial_shape& actual,
                          const partial_shape& expected, const char* what, const char* from) {
  if (!actual.compatible_with(expected))
    return c.error(what, " has shape ", actual.to_string(), " but ", from, " give ",
                   expected.to_string());
  return {};
}

partial_shape merged(const partial_shape& a, const partial_shape& b) {
  auto m = a.merge(b);
  return m.ok() ? *m : a;
}

// A rank-4 shape of unknown dims except `dim` = `size`.
partial_shape with_dims(std::initializer_list<std::pair<int, int64_t>> dims) {
  std::vector<int64_t> v(4, -1);
  for (auto [i, size] : dims) v[i] = size;
  return partial_shape(v);
}

status conv2d_shape(shape_context& c) {
  auto p = parse_conv2d_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 0, "input"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "filter"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape out, conv_output_shape(c, *p, c.input(0), c.input(1)));
  c.set_output(0, out);
  return {};
}

// _FusedConv2D: Conv2D's output, then the fused ops' args checked against its channels.
status fused_conv2d_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(conv2d_shape(c));
  auto p = parse_conv2d_params(c.node());
  const int64_t channels = c.outputs()[0].dim_or_unknown(image_layout_of(p->nchw).c);
  return ops_detail::check_fused_args(c, /*batch_norm_allowed=*/true, 2, channels);
}

status conv2d_backprop_input_shape(shape_context& c) {
  auto p = parse_conv2d_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "filter"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 2, "out_backprop"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape input, image_sizes_input(c, 0, "input_sizes"));
  const image_layout l = image_layout_of(p->nchw);
  // What the other inputs say of the input: its batch and its depth.
  input = merged(input, with_dims({{l.n, c.input(2).dim_or_unknown(l.n)},
                                   {l.c, c.input(1).dim_or_unknown(2)}}));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, conv_output_shape(c, *p, input, c.input(1)));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(2), expected, "out_backprop", "input_sizes and filter"));
  c.set_output(0, input);
  return {};
}

status conv2d_backprop_filter_shape(shape_context& c) {
  auto p = parse_conv2d_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 0, "input"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 2, "out_backprop"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape filter, image_sizes_input(c, 1, "filter_sizes"));
  const image_layout l = image_layout_of(p->nchw);
  filter =
      merged(filter,
             with_dims({{2, c.input(0).dim_or_unknown(l.c)}, {3, c.input(2).dim_or_unknown(l.c)}}));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, conv_output_shape(c, *p, c.input(0), filter));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(2), expected, "out_backprop", "input and filter_sizes"));
  c.set_output(0, filter);
  return {};
}

// MaxPool calls its input "input", AvgPool "value".
shape_fn pool_shape(const char* input_name) {
  return [input_name](shape_context& c) -> status {
    auto p = parse_pool_params(c.node());
    if (!p.ok()) return in_node(c, p.get_status());
    CAFLOW_RETURN_IF_ERROR(require_rank4(c, 0, input_name));
    CAFLOW_ASSIGN_OR_RETURN(partial_shape out, pool_output_shape(c, *p, c.input(0)));
    c.set_output(0, out);
    return {};
  };
}

// MaxPoolGrad and MaxPoolGradGrad: orig_output must be what pooling orig_input gives; returns
// that shape, merged with orig_output's.
status_or<partial_shape> max_pool_grad_inputs(shape_context& c) {
  auto p = parse_pool_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 0, "orig_input"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "orig_output"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 2, "grad"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, pool_output_shape(c, *p, c.input(0)));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(1), expected, "orig_output", "orig_input and the window"));
  return merged(expected, c.input(1));
}

// MaxPoolGrad: grad is shaped like orig_output, the output like orig_input.
status max_pool_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(partial_shape pooled, max_pool_grad_inputs(c));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(2), pooled, "grad", "orig_input and orig_output"));
  c.set_output(0, c.input(0).rank_known() ? c.input(0) : partial_shape::unknown_of_rank(4));
  return {};
}

// MaxPoolGradGrad: grad is shaped like orig_input, the output like orig_output.
status max_pool_grad_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(partial_shape pooled, max_pool_grad_inputs(c));
  CAFLOW_RETURN_IF_ERROR(require_compatible(c, c.input(2), c.input(0), "grad", "orig_input"));
  c.set_output(0, pooled);
  return {};
}

status avg_pool_grad_shape(shape_context& c) {
  auto p = parse_pool_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "grad"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape input, image_sizes_input(c, 0, "orig_input_shape"));
  const image_layout l = image_layout_of(p->nchw);
  input = merged(input, with_dims({{l.n, c.input(1).dim_or_unknown(l.n)},
                                   {l.c, c.input(1).dim_or_unknown(l.c)}}));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, pool_output_shape(c, *p, input));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(1), expected, "grad", "orig_input_shape and the window"));
  c.set_output(0, input);
  return {};
}

}  // namespace

// TensorFlow 1.x's signatures; "EXPLICIT" padding came with TF 1.14.
#define CAFLOW_CONV2D_ATTRS                      \
  attr("T: {float32, float64}")                  \
      .attr("strides: list(int)")                \
      .attr("use_cudnn_on_gpu: bool = true")     \
      .attr("padding: string")                   \
      .attr("explicit_paddings: list(int) = []") \
      .attr("data_format: string = 'NHWC'")      \
      .attr("dilations: list(int) = [1, 1, 1, 1]")

CAFLOW_REGISTER_OP("Conv2D")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .CAFLOW_CONV2D_ATTRS.set_shape_fn(conv2d_shape);

CAFLOW_REGISTER_OP("Conv2DBackpropInput")
    .input("input_sizes: int32")
    .input("filter: T")
    .input("out_backprop: T")
    .output("output: T")
    .CAFLOW_CONV2D_ATTRS.set_shape_fn(conv2d_backprop_input_shape);

CAFLOW_REGISTER_OP("Conv2DBackpropFilter")
    .input("input: T")
    .input("filter_sizes: int32")
    .input("out_backprop: T")
    .output("output: T")
    .CAFLOW_CONV2D_ATTRS.set_shape_fn(conv2d_backprop_filter_shape);

// Grappler's remapper and the TF.js converter fuse a BiasAdd (or an inference-mode
// FusedBatchNorm) and an activation into the convolution (graph/util/fused_op_spec.hpp).
CAFLOW_REGISTER_OP("_FusedConv2D")
    .input("input: T")
    .input("filter: T")
    .input("args: num_args * T")
    .output("output: T")
    .attr("num_args: int >= 0")
    .attr("fused_ops: list(string) = []")
    .attr("epsilon: float = 0.0001")
    .attr("leakyrelu_alpha: float = 0.2")
    .CAFLOW_CONV2D_ATTRS.set_shape_fn(fused_conv2d_shape);

#undef CAFLOW_CONV2D_ATTRS

#define CAFLOW_POOL_ATTRS         \
  attr("ksize: list(int)")        \
      .attr("strides: list(int)") \
      .attr("padding: string")    \
      .attr("data_format: string = 'NHWC'")

CAFLOW_REGISTER_OP("MaxPool")
    .input("input: T")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8} = float32")
    .CAFLOW_POOL_ATTRS.set_shape_fn(pool_shape("input"));

CAFLOW_REGISTER_OP("MaxPoolGrad")
    .input("orig_input: T")
    .input("orig_output: T")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8} = float32")
    .CAFLOW_POOL_ATTRS.set_shape_fn(max_pool_grad_shape);

CAFLOW_REGISTER_OP("MaxPoolGradGrad")
    .input("orig_input: T")
    .input("orig_output: T")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8} = float32")
    .CAFLOW_POOL_ATTRS.set_shape_fn(max_pool_grad_grad_shape);

CAFLOW_REGISTER_OP("AvgPool")
    .input("value: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL_ATTRS.set_shape_fn(pool_shape("value"));

CAFLOW_REGISTER_OP("AvgPoolGrad")
    .input("orig_input_shape: int32")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL_ATTRS.set_shape_fn(avg_pool_grad_shape);

#undef CAFLOW_POOL_ATTRS

}  // namespace caflow
