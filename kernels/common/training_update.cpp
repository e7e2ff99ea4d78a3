#include "kernels/common/training_update.hpp"

namespace caflow::training {

status check_scalar(const tensor& t, const char* name) {
  if (t.rank() != 0)
    return errors::invalid_argument(name, " must be a scalar but has shape ",
                                    t.shape().to_string());
  return {};
}

namespace detail {

status ref_variables(const kernel_context& ctx, std::span<const char* const> names,
                     std::span<variable*> vars) {
  for (size_t i = 0; i < vars.size(); ++i) {
    vars[i] = ctx.input_ref(static_cast<int>(i)).get();
    if (vars[i] == nullptr)
      return errors::invalid_argument(names[i], " is not a variable reference");
    for (size_t j = 0; j < i; ++j) {
      if (vars[j] == vars[i])
        return errors::invalid_argument("variable '", vars[i]->name(), "' is given as both ",
                                        names[j], " and ", names[i]);
    }
  }
  return {};
}

status check_values(std::span<tensor* const> values, std::span<variable* const> vars,
                    std::span<const char* const> names) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i]->initialized())
      return errors::failed_precondition("attempting to use uninitialized variable '",
                                         vars[i]->name(), "'");
  }
  const tensor_shape& shape = values[0]->shape();
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i]->shape() != shape)
      return errors::invalid_argument(names[i], " '", vars[i]->name(), "' of shape ",
                                      values[i]->shape().to_string(), " does not match var '",
                                      vars[0]->name(), "' of shape ", shape.to_string());
  }
  return {};
}

status check_dense_grad(const tensor_shape& grad, const variable& var, const tensor& value) {
  if (grad != value.shape())
    return errors::invalid_argument("gradient of shape ", grad.to_string(),
                                    " does not match var '", var.name(), "' of shape ",
                                    value.shape().to_string());
  return {};
}

}  // namespace detail
}  // namespace caflow::training
