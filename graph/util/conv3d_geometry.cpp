#include "graph/util/conv3d_geometry.hpp"

#include "graph/util/volume_attrs.hpp"

namespace caflow {

status_or<conv3d_params> parse_conv3d_params(const node_def& n) {
  conv3d_params p;
  CAFLOW_ASSIGN_OR_RETURN(const volume_layout layout, parse_volume_layout(n));
  p.channels_first = layout.channels_first;
  p.padding = layout.padding;
  CAFLOW_ASSIGN_OR_RETURN(p.stride, spatial_triple(n, "strides", p.channels_first));
  CAFLOW_ASSIGN_OR_RETURN(p.dilation, spatial_triple(n, "dilations", p.channels_first));
  return p;
}

status_or<partial_shape> conv3d_output_shape(const conv3d_params& p, const partial_shape& input,
                                             const partial_shape& filter) {
  for (const partial_shape* s : {&input, &filter})
    if (s->rank_known() && s->rank() != 5)
      return errors::invalid_argument(s == &input ? "input" : "filter",
                                      " must be 5-dimensional, got shape ", s->to_string());
  const int first = p.channels_first ? 2 : 1, c = p.channels_first ? 1 : 4;
  const int64_t depth = input.dim_or_unknown(c), filter_depth = filter.dim_or_unknown(3);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    return errors::invalid_argument("input depth ", depth, " does not match filter depth ",
                                    filter_depth, " (input ", input.to_string(), ", filter ",
                                    filter.to_string(), ")");
  std::vector<int64_t> out(5, -1);
  out[0] = input.dim_or_unknown(0);
  out[c] = filter.dim_or_unknown(4);
  for (int i = 0; i < 3; ++i) {
    const int64_t in = input.dim_or_unknown(first + i), k = filter.dim_or_unknown(i);
    if (in < 0 || k < 0) continue;
    auto d = windowed_output_size(in, k, p.dilation[i], p.stride[i], p.padding);
    if (!d.ok())
      return errors::invalid_argument(d.get_status().message(), " (spatial dimension ", i,
                                      " of input ", input.to_string(), ", filter ",
                                      filter.to_string(), ")");
    out[first + i] = d->out;
  }
  return partial_shape(out);
}

status_or<conv3d_geometry> conv3d_geometry_for(const conv3d_params& p, const tensor_shape& input,
                                               const tensor_shape& filter) {
  if (p.channels_first)
    return errors::unimplemented("3-D convolution supports only data_format NDHWC on the CPU");
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, conv3d_output_shape(p, input, filter));
  conv3d_geometry g;
  g.batch = input.dim(0);
  g.in_depth = input.dim(4);
  g.out_depth = filter.dim(4);
  for (int i = 0; i < 3; ++i) {
    const auto d = windowed_output_size(input.dim(i + 1), filter.dim(i), p.dilation[i],
                                        p.stride[i], p.padding);
    g.in[i] = input.dim(i + 1);
    g.filter[i] = filter.dim(i);
    g.out[i] = out.dim(i + 1);
    g.stride[i] = p.stride[i];
    g.dilation[i] = p.dilation[i];
    g.pad_before[i] = d->pad_before;
  }
  return g;
}

}  // namespace caflow
