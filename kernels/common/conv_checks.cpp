#include "kernels/common/conv_checks.hpp"

#include <vector>

namespace caflow {

status read_conv2d_kernel_params(const kernel_construction& c, const char* device,
                                 conv2d_params* p, bool dilations_supported) {
  CAFLOW_ASSIGN_OR_RETURN(*p, parse_conv2d_params(c.def()));
  if (p->nchw)
    return errors::unimplemented("the ", device,
                                 " kernel supports only data_format NHWC, got NCHW");
  std::vector<int64_t> dilations;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("dilations", &dilations));
  if (!dilations_supported && (p->dilation_rows != 1 || p->dilation_cols != 1))
    return errors::unimplemented("the ", device, " kernel supports only dilations of 1, got ",
                                 format_dims(dilations));
  return {};
}

status_or<conv2d_geometry> conv2d_kernel_geometry(const conv2d_params& p, const tensor_shape& input,
                                                  const tensor_shape& filter) {
  if (input.rank() != 4)
    return errors::invalid_argument("input must be 4-dimensional, got shape ", input.to_string());
  if (filter.rank() != 4)
    return errors::invalid_argument("filter must be 4-dimensional, got shape ", filter.to_string());
  return conv2d_geometry_for(p, input, filter);
}

namespace {

// out_backprop has the shape of the convolution of `input` by `filter` (named as the op's
// inputs are, for the message).
status check_out_backprop(const tensor_shape& out_backprop, const conv2d_geometry& g,
                          const char* input_name, const tensor_shape& input,
                          const char* filter_name, const tensor_shape& filter) {
  const tensor_shape expected = g.output_shape();
  if (out_backprop != expected)
    return errors::invalid_argument("out_backprop has shape ", out_backprop.to_string(), " but ",
                                    input_name, " ", input.to_string(), " and ", filter_name, " ",
                                    filter.to_string(), " give ", expected.to_string());
  return {};
}

}  // namespace

status_or<window_gradient> conv2d_backprop_input_geometry(const conv2d_params& p,
                                                          const tensor& input_sizes,
                                                          const tensor_shape& filter,
                                                          const tensor_shape& out_backprop) {
  window_gradient dx;
  CAFLOW_ASSIGN_OR_RETURN(dx.shape, image_shape_from_sizes(input_sizes, "input_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(dx.geometry, conv2d_kernel_geometry(p, dx.shape, filter));
  CAFLOW_RETURN_IF_ERROR(
      check_out_backprop(out_backprop, dx.geometry, "input_sizes", dx.shape, "filter", filter));
  return dx;
}

status_or<window_gradient> conv2d_backprop_filter_geometry(const conv2d_params& p,
                                                           const tensor_shape& input,
                                                           const tensor& filter_sizes,
                                                           const tensor_shape& out_backprop) {
  window_gradient dw;
  CAFLOW_ASSIGN_OR_RETURN(dw.shape, image_shape_from_sizes(filter_sizes, "filter_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(dw.geometry, conv2d_kernel_geometry(p, input, dw.shape));
  CAFLOW_RETURN_IF_ERROR(
      check_out_backprop(out_backprop, dw.geometry, "input", input, "filter_sizes", dw.shape));
  return dw;
}

}  // namespace caflow
