#include "graph/util/conv_geometry.hpp"

#include "graph/ir/node_signature.hpp"

namespace caflow {
namespace {

status_or<bool> parse_data_format(const node_def& n) {
  std::string format;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "data_format", &format));
  if (format == "NHWC") return false;
  if (format == "NCHW") return true;
  return errors::invalid_argument("invalid data_format '", format, "' (expected NHWC or NCHW)");
}

// A 4-entry window attr (strides, ksize, dilations) whose batch and depth entries must be 1;
// returns the row and column entries.
status_or<std::array<int64_t, 2>> spatial_pair(const node_def& n, const char* attr, image_layout l,
                                               const char* what) {
  std::vector<int64_t> v;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, attr, &v));
  if (v.size() != 4)
    return errors::invalid_argument("sliding window ", attr, " field must specify 4 dimensions, got ",
                                    format_dims(v));
  if (v[l.n] != 1 || v[l.c] != 1)
    return errors::unimplemented("current implementation does not yet support ", what,
                                 " in the batch and depth dimensions: ", attr, " ",
                                 format_dims(v));
  if (v[l.h] < 1 || v[l.w] < 1)
    return errors::invalid_argument(attr, " must be positive in the row and column dimensions, got ",
                                    format_dims(v));
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
  const image_layout l = image_layout_of(p.nchw);
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
      return errors::invalid_argument("explicit_paddings ", format_dims(pads),
                                      " given with a padding other than EXPLICIT");
    return p;
  }
  if (pads.size() != 8)
    return errors::invalid_argument("explicit_paddings must hold 8 values with padding EXPLICIT, got ",
                                    format_dims(pads));
  if (pads[2 * l.n] != 0 || pads[2 * l.n + 1] != 0 || pads[2 * l.c] != 0 ||
      pads[2 * l.c + 1] != 0)
    return errors::unimplemented("explicit padding in the batch or depth dimension: ",
                                 format_dims(pads));
  for (int64_t v : pads)
    if (v < 0)
      return errors::invalid_argument("explicit_paddings must be non-negative, got ",
                                      format_dims(pads));
  p.explicit_pads = {pads[2 * l.h], pads[2 * l.h + 1], pads[2 * l.w], pads[2 * l.w + 1]};
  return p;
}

status_or<pool_params> parse_pool_params(const node_def& n) {
  pool_params p;
  CAFLOW_ASSIGN_OR_RETURN(p.nchw, parse_data_format(n));
  const image_layout l = image_layout_of(p.nchw);
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
  if (input.dim(3) != filter.dim(2))
    return errors::invalid_argument("input and filter must have the same depth: ", input.dim(3),
                                    " vs ", filter.dim(2), " (input ", input.to_string(),
                                    ", filter ", filter.to_string(), ")");
  auto rows = windowed_output_size(input.dim(1), filter.dim(0), p.dilation_rows, p.stride_rows,
                                   p.padding,
                                   p.explicit_pads[0], p.explicit_pads[1]);
  if (!rows.ok())
    return errors::invalid_argument(rows.get_status().message(), " (rows of input ",
                                    input.to_string(), ", filter ", filter.to_string(), ")");
  auto cols = windowed_output_size(input.dim(2), filter.dim(1), p.dilation_cols, p.stride_cols,
                                   p.padding,
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
  g.dilation_rows = p.dilation_rows;
  g.dilation_cols = p.dilation_cols;
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
      return errors::invalid_argument(what, " must be non-negative, got ", format_dims(dims));
  return tensor_shape(std::span<const int64_t>(dims));
}

}  // namespace caflow
