#include "kernels/common/nn_checks.hpp"

#include <string>

namespace caflow::nn {
namespace {

status check_at_least_matrix(const char* name, const tensor_shape& shape) {
  if (shape.rank() < 2)
    return errors::invalid_argument(name, " must have at least two dimensions, got shape ",
                                    shape.to_string());
  return {};
}

}  // namespace

status check_bias_data_format(const kernel_construction& c, const char* device) {
  std::string data_format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &data_format));
  if (data_format == "NCHW")
    return errors::unimplemented("data_format \"NCHW\" has no ", device, " kernel; use \"NHWC\" ",
                                 "(channels in the last dimension)");
  if (data_format != "NHWC")
    return errors::invalid_argument("data_format must be \"NHWC\" or \"NCHW\", got \"", data_format,
                                    "\"");
  return {};
}

status check_bias_add_shapes(const tensor_shape& value, const tensor_shape& bias) {
  CAFLOW_RETURN_IF_ERROR(check_at_least_matrix("value", value));
  if (bias.rank() != 1 || bias.dim(0) != value.dim(value.rank() - 1))
    return errors::invalid_argument("bias of shape ", bias.to_string(),
                                    " must be a vector as long as the last dimension",
                                    " of value of shape ", value.to_string());
  return {};
}

status check_bias_add_grad_shape(const tensor_shape& out_backprop) {
  return check_at_least_matrix("out_backprop", out_backprop);
}

status check_softmax_logits(const tensor_shape& logits) {
  if (logits.rank() < 1)
    return errors::invalid_argument("logits must have at least one dimension, got ", "shape ",
                                    logits.to_string());
  return {};
}

}  // namespace caflow::nn
