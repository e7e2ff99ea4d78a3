#include "graph/util/argmax_pool_rules.hpp"

#include "graph/ir/node_signature.hpp"

namespace caflow {
namespace {

status_or<std::array<int64_t, 2>> pair_of(const node_def& n, const char* attr) {
  std::vector<int64_t> v;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, attr, &v));
  if (v.size() != 4)
    return errors::invalid_argument(attr, " must have 4 entries, got ", format_dims(v));
  if (v[0] != 1 || v[3] != 1)
    return errors::unimplemented("pooling over the batch or depth dimension is not supported: ",
                                 attr, " ", format_dims(v));
  if (v[1] < 1 || v[2] < 1)
    return errors::invalid_argument(attr, " must be positive, got ", format_dims(v));
  return std::array<int64_t, 2>{v[1], v[2]};
}

}  // namespace

status_or<pool_params> parse_argmax_pool_params(const node_def& n) {
  pool_params p;
  CAFLOW_ASSIGN_OR_RETURN(auto k, pair_of(n, "ksize"));
  CAFLOW_ASSIGN_OR_RETURN(auto s, pair_of(n, "strides"));
  p.window_rows = k[0];
  p.window_cols = k[1];
  p.stride_rows = s[0];
  p.stride_cols = s[1];
  std::string padding;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "padding", &padding));
  if (padding == "SAME") p.padding = conv_padding::same;
  else if (padding == "VALID") p.padding = conv_padding::valid;
  else return errors::invalid_argument("invalid padding '", padding, "' (expected SAME or VALID)");
  return p;
}

status_or<partial_shape> argmax_pool_output_shape(const pool_params& p, const partial_shape& in) {
  if (!in.rank_known()) return partial_shape::unknown_of_rank(4);
  if (in.rank() != 4)
    return errors::invalid_argument("input must be 4-dimensional, got shape ", in.to_string());
  std::vector<int64_t> out = in.dim_vector();
  const int64_t windows[2] = {p.window_rows, p.window_cols};
  const int64_t strides[2] = {p.stride_rows, p.stride_cols};
  for (int i = 0; i < 2; ++i) {
    if (out[1 + i] < 0) continue;
    auto d = windowed_output_size(out[1 + i], windows[i], 1, strides[i], p.padding);
    if (!d.ok())
      return errors::invalid_argument(d.get_status().message(), " (input ", in.to_string(), ")");
    out[1 + i] = d->out;
  }
  return partial_shape(out);
}

}  // namespace caflow
