#include "kernels/common/pool_checks.hpp"

namespace caflow {

status read_pool_kernel_params(const kernel_construction& c, const char* device, pool_params* p) {
  CAFLOW_ASSIGN_OR_RETURN(*p, parse_pool_params(c.def()));
  if (p->nchw)
    return errors::unimplemented("the ", device,
                                 " kernel supports only data_format NHWC, got NCHW");
  return {};
}

status_or<conv2d_geometry> pool_kernel_geometry(const pool_params& p, const tensor_shape& input,
                                                const char* what) {
  if (input.rank() != 4)
    return errors::invalid_argument(what, " must be 4-dimensional, got shape ", input.to_string());
  return pool_geometry_for(p, input);
}

status_or<conv2d_geometry> max_pool_grad_geometry(const pool_params& p,
                                                  const tensor_shape& orig_input,
                                                  const tensor_shape& orig_output,
                                                  const tensor_shape& grad) {
  CAFLOW_ASSIGN_OR_RETURN(conv2d_geometry g, pool_kernel_geometry(p, orig_input, "orig_input"));
  const tensor_shape pooled = g.output_shape();
  if (orig_output != pooled)
    return errors::invalid_argument("orig_output has shape ", orig_output.to_string(),
                                    " but pooling orig_input ", orig_input.to_string(), " gives ",
                                    pooled.to_string());
  if (grad != pooled)
    return errors::invalid_argument("grad has shape ", grad.to_string(),
                                    " but orig_output has shape ", pooled.to_string());
  return g;
}

status_or<window_gradient> avg_pool_grad_geometry(const pool_params& p,
                                                  const tensor& orig_input_shape,
                                                  const tensor_shape& grad) {
  window_gradient dx;
  CAFLOW_ASSIGN_OR_RETURN(dx.shape, image_shape_from_sizes(orig_input_shape, "orig_input_shape"));
  CAFLOW_ASSIGN_OR_RETURN(dx.geometry, pool_kernel_geometry(p, dx.shape, "orig_input_shape"));
  const tensor_shape pooled = dx.geometry.output_shape();
  if (grad != pooled)
    return errors::invalid_argument("grad has shape ", grad.to_string(),
                                    " but pooling an input of shape ", dx.shape.to_string(),
                                    " gives ", pooled.to_string());
  return dx;
}

}  // namespace caflow
