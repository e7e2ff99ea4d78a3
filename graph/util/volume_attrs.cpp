#include "graph/util/volume_attrs.hpp"

#include "graph/ir/node_signature.hpp"

namespace caflow {

status_or<volume_layout> parse_volume_layout(const node_def& n) {
  volume_layout l;
  std::string format, padding;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "data_format", &format));
  if (format != "NDHWC" && format != "NCDHW")
    return errors::invalid_argument("invalid data_format '", format,
                                    "' (expected NDHWC or NCDHW)");
  l.channels_first = format == "NCDHW";
  CAFLOW_RETURN_IF_ERROR(get_attr(n, "padding", &padding));
  if (padding == "SAME")
    l.padding = conv_padding::same;
  else if (padding == "VALID")
    l.padding = conv_padding::valid;
  else
    return errors::invalid_argument("invalid padding '", padding, "' (expected SAME or VALID)");
  return l;
}

status_or<std::array<int64_t, 3>> spatial_triple(const node_def& n, const char* attr,
                                                 bool channels_first) {
  std::vector<int64_t> v;
  CAFLOW_RETURN_IF_ERROR(get_attr(n, attr, &v));
  if (v.size() != 5)
    return errors::invalid_argument(attr, " must have 5 entries, got ", format_dims(v));
  const int c = channels_first ? 1 : 4, first = channels_first ? 2 : 1;
  if (v[0] != 1 || v[c] != 1)
    return errors::unimplemented(attr, " in the batch and channel dimensions must be 1, got ",
                                 format_dims(v));
  std::array<int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) {
    out[i] = v[first + i];
    if (out[i] < 1) return errors::invalid_argument(attr, " must be positive, got ", format_dims(v));
  }
  return out;
}

}  // namespace caflow
