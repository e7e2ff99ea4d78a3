#include "kernels/common/loss_checks.hpp"

namespace caflow::nn {
namespace {

status check_features(const tensor_shape& features) {
  if (features.rank() != 2)
    return errors::invalid_argument("features must be a matrix [batch, classes], got shape ",
                                    features.to_string());
  return {};
}

}  // namespace

status check_softmax_xent_shapes(const tensor_shape& features, const tensor_shape& labels) {
  CAFLOW_RETURN_IF_ERROR(check_features(features));
  if (labels != features)
    return errors::invalid_argument("labels of shape ", labels.to_string(),
                                    " must have the shape of features ", features.to_string());
  return {};
}

status check_sparse_softmax_xent_shapes(const tensor_shape& features, const tensor_shape& labels) {
  CAFLOW_RETURN_IF_ERROR(check_features(features));
  if (labels.rank() != 1 || labels.dim(0) != features.dim(0))
    return errors::invalid_argument("labels of shape ", labels.to_string(),
                                    " must be a vector with one entry per row of ",
                                    "features of shape ", features.to_string());
  return {};
}

}  // namespace caflow::nn
