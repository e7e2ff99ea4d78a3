#include "graph/util/pool3d_geometry.hpp"

#include "graph/util/volume_attrs.hpp"

namespace caflow {

status_or<pool3d_params> parse_pool3d_params(const node_def& n) {
  pool3d_params p;
  CAFLOW_ASSIGN_OR_RETURN(const volume_layout layout, parse_volume_layout(n));
  p.channels_first = layout.channels_first;
  p.padding = layout.padding;
  CAFLOW_ASSIGN_OR_RETURN(p.window, spatial_triple(n, "ksize", p.channels_first));
  CAFLOW_ASSIGN_OR_RETURN(p.stride, spatial_triple(n, "strides", p.channels_first));
  return p;
}

status_or<partial_shape> pool3d_output_shape(const pool3d_params& p, const partial_shape& input) {
  if (!input.rank_known()) return partial_shape::unknown_of_rank(5);
  if (input.rank() != 5)
    return errors::invalid_argument("input must be 5-dimensional, got shape ", input.to_string());
  std::vector<int64_t> out = input.dim_vector();
  const int first = p.channels_first ? 2 : 1;
  for (int i = 0; i < 3; ++i) {
    const int64_t in = input.dim(first + i);
    if (in < 0) continue;
    auto d = windowed_output_size(in, p.window[i], 1, p.stride[i], p.padding);
    if (!d.ok())
      return errors::invalid_argument(d.get_status().message(), " (spatial dimension ", i,
                                      " of input ", input.to_string(), ")");
    out[first + i] = d->out;
  }
  return partial_shape(out);
}

status_or<pool3d_geometry> pool3d_geometry_for(const pool3d_params& p, const tensor_shape& input) {
  if (p.channels_first)
    return errors::unimplemented("3-D pooling supports only data_format NDHWC on the CPU");
  if (input.rank() != 5)
    return errors::invalid_argument("input must be 5-dimensional, got shape ", input.to_string());
  pool3d_geometry g;
  g.batch = input.dim(0);
  g.depth = input.dim(4);
  for (int i = 0; i < 3; ++i) {
    auto d = windowed_output_size(input.dim(i + 1), p.window[i], 1, p.stride[i], p.padding);
    if (!d.ok())
      return errors::invalid_argument(d.get_status().message(), " (spatial dimension ", i,
                                      " of input ", input.to_string(), ")");
    g.in[i] = input.dim(i + 1);
    g.window[i] = p.window[i];
    g.stride[i] = p.stride[i];
    g.out[i] = d->out;
    g.pad_before[i] = d->pad_before;
  }
  return g;
}

}  // namespace caflow
