#include "graph/util/depthwise_geometry.hpp"

namespace caflow {
namespace {

status_or<int64_t> out_size(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                            const conv2d_params& p, int64_t before, int64_t after,
                            const char* what, const partial_shape& input,
                            const partial_shape& filter) {
  if (in < 0 || k < 0) return int64_t{-1};
  auto d = windowed_output_size(in, k, dilation, stride, p.padding, before, after);
  if (!d.ok())
    return errors::invalid_argument(d.get_status().message(), " (", what, " of input ",
                                    input.to_string(), ", filter ", filter.to_string(), ")");
  return d->out;
}

}  // namespace

status_or<partial_shape> depthwise_output_shape(const conv2d_params& p,
                                                const partial_shape& input,
                                                const partial_shape& filter) {
  for (const partial_shape* s : {&input, &filter})
    if (s->rank_known() && s->rank() != 4)
      return errors::invalid_argument(s == &input ? "input" : "filter",
                                      " must be 4-dimensional, got shape ", s->to_string());
  const image_layout l = image_layout_of(p.nchw);
  const int64_t depth = input.dim_or_unknown(l.c), filter_depth = filter.dim_or_unknown(2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    return errors::invalid_argument("input depth ", depth, " does not match filter depth ",
                                    filter_depth, " (input ", input.to_string(), ", filter ",
                                    filter.to_string(), ")");
  CAFLOW_ASSIGN_OR_RETURN(
      const int64_t rows,
      out_size(input.dim_or_unknown(l.h), filter.dim_or_unknown(0), p.dilation_rows, p.stride_rows,
               p, p.explicit_pads[0], p.explicit_pads[1], "rows", input, filter));
  CAFLOW_ASSIGN_OR_RETURN(
      const int64_t cols,
      out_size(input.dim_or_unknown(l.w), filter.dim_or_unknown(1), p.dilation_cols, p.stride_cols,
               p, p.explicit_pads[2], p.explicit_pads[3], "columns", input, filter));
  const int64_t d = depth >= 0 ? depth : filter_depth, m = filter.dim_or_unknown(3);
  std::vector<int64_t> out(4);
  out[l.n] = input.dim_or_unknown(l.n);
  out[l.h] = rows;
  out[l.w] = cols;
  out[l.c] = d >= 0 && m >= 0 ? d * m : -1;
  return partial_shape(out);
}

status_or<depthwise_geometry> depthwise_geometry_for(const conv2d_params& p,
                                                     const tensor_shape& input,
                                                     const tensor_shape& filter) {
  if (p.nchw) return errors::unimplemented("depthwise convolution supports only data_format NHWC");
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, depthwise_output_shape(p, input, filter));
  const auto rows = windowed_output_size(input.dim(1), filter.dim(0), p.dilation_rows,
                                         p.stride_rows, p.padding, p.explicit_pads[0],
                                         p.explicit_pads[1]);
  const auto cols = windowed_output_size(input.dim(2), filter.dim(1), p.dilation_cols,
                                         p.stride_cols, p.padding, p.explicit_pads[2],
                                         p.explicit_pads[3]);
  depthwise_geometry g;
  g.batch = input.dim(0);
  g.in_rows = input.dim(1);
  g.in_cols = input.dim(2);
  g.depth = input.dim(3);
  g.filter_rows = filter.dim(0);
  g.filter_cols = filter.dim(1);
  g.multiplier = filter.dim(3);
  g.out_rows = out.dim(1);
  g.out_cols = out.dim(2);
  g.stride_rows = p.stride_rows;
  g.stride_cols = p.stride_cols;
  g.dilation_rows = p.dilation_rows;
  g.dilation_cols = p.dilation_cols;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return g;
}

}  // namespace caflow
