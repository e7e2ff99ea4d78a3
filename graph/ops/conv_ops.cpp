#include "graph/ops/conv_ops.hpp"

#include <algorithm>

#include "graph/node_builder.hpp"
#include "graph/shape_inference.hpp"

namespace caflow {
namespace {

std::string list_string(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

// Positions of the batch, row, column and depth dimensions in a data_format.
struct layout {
  int n, h, w, c;
};
constexpr layout nhwc_layout{0, 1, 2, 3}, nchw_layout{0, 2, 3, 1};
layout layout_of(bool nchw) { return nchw ? nchw_layout : nhwc_layout; }

status_or<bool> parse_data_format(const node_def& n) {
  std::string format;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "data_format", &format));
  if (format == "NHWC") return false;
  if (format == "NCHW") return true;
  return errors::invalid_argument("invalid data_format '", format, "' (expected NHWC or NCHW)");
}

// A 4-entry window attr (strides, ksize, dilations) whose batch and depth entries must be 1;
// returns the row and column entries.
status_or<std::array<int64_t, 2>> spatial_pair(const node_def& n, const char* attr, layout l,
                                               const char* what) {
  std::vector<int64_t> v;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, attr, &v));
  if (v.size() != 4)
    return errors::invalid_argument("sliding window ", attr, " field must specify 4 dimensions, got ",
                                    list_string(v));
  if (v[l.n] != 1 || v[l.c] != 1)
    return errors::unimplemented("current implementation does not yet support ", what,
                                 " in the batch and depth dimensions: ", attr, " ",
                                 list_string(v));
  if (v[l.h] < 1 || v[l.w] < 1)
    return errors::invalid_argument(attr, " must be positive in the row and column dimensions, got ",
                                    list_string(v));
  return std::array<int64_t, 2>{v[l.h], v[l.w]};
}

status_or<conv_padding> parse_padding(const node_def& n, bool allow_explicit) {
  std::string padding;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "padding", &padding));
  if (padding == "SAME") return conv_padding::same;
  if (padding == "VALID") return conv_padding::valid;
  if (padding == "EXPLICIT" && allow_explicit) return conv_padding::explicit_;
  return errors::invalid_argument("invalid padding '", padding, "' (expected ",
                                  allow_explicit ? "SAME, VALID or EXPLICIT)" : "SAME or VALID)");
}

int64_t dim_of(const partial_shape& s, int i) { return s.rank_known() ? s.dim(i) : -1; }

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
  const layout l = layout_of(p.nchw);
  const int64_t depth = dim_of(input, l.c), filter_depth = dim_of(filter, 2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    return c.error("input and filter must have the same depth: ", depth, " vs ", filter_depth,
                   " (input ", input.to_string(), ", filter ", filter.to_string(), ")");
  auto rows = output_dim(dim_of(input, l.h), dim_of(filter, 0), p.dilation_rows, p.stride_rows,
                         p.padding, p.explicit_pads[0], p.explicit_pads[1]);
  if (!rows.ok()) return c.error(rows.get_status().message(), " (rows of input ",
                                 input.to_string(), ", filter ", filter.to_string(), ")");
  auto cols = output_dim(dim_of(input, l.w), dim_of(filter, 1), p.dilation_cols, p.stride_cols,
                         p.padding, p.explicit_pads[2], p.explicit_pads[3]);
  if (!cols.ok()) return c.error(cols.get_status().message(), " (columns of input ",
                                 input.to_string(), ", filter ", filter.to_string(), ")");
  std::vector<int64_t> out(4);
  out[l.n] = dim_of(input, l.n);
  out[l.h] = *rows;
  out[l.w] = *cols;
  out[l.c] = dim_of(filter, 3);
  return partial_shape(out);
}

status_or<partial_shape> pool_output_shape(const shape_context& c, const pool_params& p,
                                           const partial_shape& input) {
  const layout l = layout_of(p.nchw);
  auto rows = output_dim(dim_of(input, l.h), p.window_rows, 1, p.stride_rows, p.padding, 0, 0);
  if (!rows.ok()) return c.error(rows.get_status().message(), " (rows of input ",
                                 input.to_string(), ")");
  auto cols = output_dim(dim_of(input, l.w), p.window_cols, 1, p.stride_cols, p.padding, 0, 0);
  if (!cols.ok()) return c.error(cols.get_status().message(), " (columns of input ",
                                 input.to_string(), ")");
  std::vector<int64_t> out(4);
  out[l.n] = dim_of(input, l.n);
  out[l.h] = *rows;
  out[l.w] = *cols;
  out[l.c] = dim_of(input, l.c);
  return partial_shape(out);
}

// A 4-D shape given as an int32 vector input (input_sizes, filter_sizes, orig_input_shape):
// its value when constant, else a rank-4 shape of unknown dims.
status_or<partial_shape> sizes_input(const shape_context& c, int i, const char* what) {
  const partial_shape& s = c.input(i);
  if (s.rank_known() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != 4)))
    return c.error(what, " must be a vector of 4 sizes, got shape ", s.to_string());
  if (const tensor* v = c.input_value(i)) {
    auto shape = image_shape_from_sizes(*v, what);
    if (!shape.ok()) return c.error(shape.get_status().message());
    return partial_shape(*shape);
  }
  return partial_shape::unknown_of_rank(4);
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

status conv2d_backprop_input_shape(shape_context& c) {
  auto p = parse_conv2d_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "filter"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 2, "out_backprop"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape input, sizes_input(c, 0, "input_sizes"));
  const layout l = layout_of(p->nchw);
  // What the other inputs say of the input: its batch and its depth.
  input = merged(input, with_dims({{l.n, dim_of(c.input(2), l.n)}, {l.c, dim_of(c.input(1), 2)}}));
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
  CAFLOW_ASSIGN_OR_RETURN(partial_shape filter, sizes_input(c, 1, "filter_sizes"));
  const layout l = layout_of(p->nchw);
  filter = merged(filter, with_dims({{2, dim_of(c.input(0), l.c)}, {3, dim_of(c.input(2), l.c)}}));
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

status max_pool_grad_shape(shape_context& c) {
  auto p = parse_pool_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 0, "orig_input"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "orig_output"));
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 2, "grad"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, pool_output_shape(c, *p, c.input(0)));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(1), expected, "orig_output", "orig_input and the window"));
  CAFLOW_RETURN_IF_ERROR(require_compatible(c, c.input(2), merged(expected, c.input(1)), "grad",
                                            "orig_input and orig_output"));
  c.set_output(0, c.input(0).rank_known() ? c.input(0) : partial_shape::unknown_of_rank(4));
  return {};
}

status avg_pool_grad_shape(shape_context& c) {
  auto p = parse_pool_params(c.node());
  if (!p.ok()) return in_node(c, p.get_status());
  CAFLOW_RETURN_IF_ERROR(require_rank4(c, 1, "grad"));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape input, sizes_input(c, 0, "orig_input_shape"));
  const layout l = layout_of(p->nchw);
  input = merged(input, with_dims({{l.n, dim_of(c.input(1), l.n)}, {l.c, dim_of(c.input(1), l.c)}}));
  CAFLOW_ASSIGN_OR_RETURN(partial_shape expected, pool_output_shape(c, *p, input));
  CAFLOW_RETURN_IF_ERROR(
      require_compatible(c, c.input(1), expected, "grad", "orig_input_shape and the window"));
  c.set_output(0, input);
  return {};
}

}  // namespace

status_or<window_dim> windowed_output_size(int64_t in, int64_t k, int64_t dilation,
                                           int64_t stride, conv_padding padding,
                                           int64_t explicit_before, int64_t explicit_after) {
  if (stride < 1) return errors::invalid_argument("stride must be positive, got ", stride);
  if (dilation < 1) return errors::invalid_argument("dilation must be positive, got ", dilation);
  if (k < 1) return errors::invalid_argument("window size must be positive, got ", k);
  const int64_t k_eff = (k - 1) * dilation + 1;
  window_dim d;
  switch (padding) {
    case conv_padding::valid:
      d.out = (in - k_eff + stride) / stride;
      break;
    case conv_padding::same: {
      d.out = (in + stride - 1) / stride;
      const int64_t pad_total = std::max<int64_t>((d.out - 1) * stride + k_eff - in, 0);
      d.pad_before = pad_total / 2;
      d.pad_after = pad_total - d.pad_before;
      break;
    }
    case conv_padding::explicit_:
      if (explicit_before < 0 || explicit_after < 0)
        return errors::invalid_argument("explicit paddings must be non-negative, got ",
                                        explicit_before, " and ", explicit_after);
      d.out = (in + explicit_before + explicit_after - k_eff + stride) / stride;
      d.pad_before = explicit_before;
      d.pad_after = explicit_after;
      break;
  }
  if (d.out < 0)
    return errors::invalid_argument("computed output size would be negative: ", d.out,
                                    " [input_size: ", in, ", effective_filter_size: ", k_eff,
                                    ", stride: ", stride, "]");
  return d;
}

status_or<conv2d_params> parse_conv2d_params(const node_def& n) {
  conv2d_params p;
  CAFLOW_ASSIGN_OR_RETURN(p.nchw, parse_data_format(n));
  const layout l = layout_of(p.nchw);
  CAFLOW_ASSIGN_OR_RETURN(auto strides, spatial_pair(n, "strides", l, "strides"));
  p.stride_rows = strides[0];
  p.stride_cols = strides[1];
  CAFLOW_ASSIGN_OR_RETURN(auto dilations, spatial_pair(n, "dilations", l, "dilations"));
  p.dilation_rows = dilations[0];
  p.dilation_cols = dilations[1];
  CAFLOW_ASSIGN_OR_RETURN(p.padding, parse_padding(n, true));
  std::vector<int64_t> pads;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "explicit_paddings", &pads));
  if (p.padding != conv_padding::explicit_) {
    if (!pads.empty())
      return errors::invalid_argument("explicit_paddings ", list_string(pads),
                                      " given with a padding other than EXPLICIT");
    return p;
  }
  if (pads.size() != 8)
    return errors::invalid_argument("explicit_paddings must hold 8 values with padding EXPLICIT, got ",
                                    list_string(pads));
  if (pads[2 * l.n] != 0 || pads[2 * l.n + 1] != 0 || pads[2 * l.c] != 0 ||
      pads[2 * l.c + 1] != 0)
    return errors::unimplemented("explicit padding in the batch or depth dimension: ",
                                 list_string(pads));
  for (int64_t v : pads)
    if (v < 0)
      return errors::invalid_argument("explicit_paddings must be non-negative, got ",
                                      list_string(pads));
  p.explicit_pads = {pads[2 * l.h], pads[2 * l.h + 1], pads[2 * l.w], pads[2 * l.w + 1]};
  return p;
}

status_or<pool_params> parse_pool_params(const node_def& n) {
  pool_params p;
  CAFLOW_ASSIGN_OR_RETURN(p.nchw, parse_data_format(n));
  const layout l = layout_of(p.nchw);
  CAFLOW_ASSIGN_OR_RETURN(auto window, spatial_pair(n, "ksize", l, "pooling"));
  p.window_rows = window[0];
  p.window_cols = window[1];
  CAFLOW_ASSIGN_OR_RETURN(auto strides, spatial_pair(n, "strides", l, "pooling strides"));
  p.stride_rows = strides[0];
  p.stride_cols = strides[1];
  CAFLOW_ASSIGN_OR_RETURN(p.padding, parse_padding(n, false));
  return p;
}

status_or<conv2d_geometry> conv2d_geometry_for(const conv2d_params& p, const tensor_shape& input,
                                               const tensor_shape& filter) {
  if (p.nchw) return errors::unimplemented("convolution supports only data_format NHWC");
  if (p.dilation_rows != 1 || p.dilation_cols != 1)
    return errors::unimplemented("convolution supports only dilations of 1, got ",
                                 p.dilation_rows, " and ", p.dilation_cols);
  if (input.dim(3) != filter.dim(2))
    return errors::invalid_argument("input and filter must have the same depth: ", input.dim(3),
                                    " vs ", filter.dim(2), " (input ", input.to_string(),
                                    ", filter ", filter.to_string(), ")");
  auto rows = windowed_output_size(input.dim(1), filter.dim(0), 1, p.stride_rows, p.padding,
                                   p.explicit_pads[0], p.explicit_pads[1]);
  if (!rows.ok())
    return errors::invalid_argument(rows.get_status().message(), " (rows of input ",
                                    input.to_string(), ", filter ", filter.to_string(), ")");
  auto cols = windowed_output_size(input.dim(2), filter.dim(1), 1, p.stride_cols, p.padding,
                                   p.explicit_pads[2], p.explicit_pads[3]);
  if (!cols.ok())
    return errors::invalid_argument(cols.get_status().message(), " (columns of input ",
                                    input.to_string(), ", filter ", filter.to_string(), ")");
  conv2d_geometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.in_depth = input.dim(3);
  g.filter_rows = filter.dim(0);
  g.filter_cols = filter.dim(1);
  g.out_depth = filter.dim(3);
  g.out_rows = rows->out;
  g.out_cols = cols->out;
  g.stride_rows = p.stride_rows;
  g.stride_cols = p.stride_cols;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return g;
}

status_or<conv2d_geometry> pool_geometry_for(const pool_params& p, const tensor_shape& input) {
  if (p.nchw) return errors::unimplemented("pooling supports only data_format NHWC");
  auto rows = windowed_output_size(input.dim(1), p.window_rows, 1, p.stride_rows, p.padding);
  if (!rows.ok())
    return errors::invalid_argument(rows.get_status().message(), " (rows of input ",
                                    input.to_string(), ")");
  auto cols = windowed_output_size(input.dim(2), p.window_cols, 1, p.stride_cols, p.padding);
  if (!cols.ok())
    return errors::invalid_argument(cols.get_status().message(), " (columns of input ",
                                    input.to_string(), ")");
  conv2d_geometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.in_depth = g.out_depth = input.dim(3);
  g.filter_rows = p.window_rows;
  g.filter_cols = p.window_cols;
  g.out_rows = rows->out;
  g.out_cols = cols->out;
  g.stride_rows = p.stride_rows;
  g.stride_cols = p.stride_cols;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return g;
}

status_or<tensor_shape> image_shape_from_sizes(const tensor& sizes, const char* what) {
  if (sizes.type() != dtype::int32 || sizes.rank() != 1 || sizes.dim(0) != 4)
    return errors::invalid_argument(what, " must be an int32 vector of 4 sizes, got ",
                                    dtype_name(sizes.type()), sizes.shape().to_string());
  const int32_t* v = sizes.data<int32_t>();
  std::vector<int64_t> dims(v, v + 4);
  for (int64_t d : dims)
    if (d < 0)
      return errors::invalid_argument(what, " must be non-negative, got ", list_string(dims));
  return tensor_shape(std::span<const int64_t>(dims));
}

// TensorFlow 1.x's signatures; "EXPLICIT" padding came with TF 1.14.
#define CAFLOW_CONV2D_ATTRS                                                               \
  attr("T: {float32, float64}")                                                           \
      .attr("strides: list(int)")                                                         \
      .attr("use_cudnn_on_gpu: bool = true")                                              \
      .attr("padding: string")                                                            \
      .attr("explicit_paddings: list(int) = []")                                          \
      .attr("data_format: string = 'NHWC'")                                               \
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

#undef CAFLOW_CONV2D_ATTRS

#define CAFLOW_POOL_ATTRS                                                                 \
  attr("ksize: list(int)")                                                                \
      .attr("strides: list(int)")                                                         \
      .attr("padding: string")                                                            \
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
