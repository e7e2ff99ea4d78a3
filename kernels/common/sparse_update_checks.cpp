#include "kernels/common/sparse_update_checks.hpp"

namespace caflow::sparse_checks {

status scatter_updates(const tensor& value, const variable& var, const tensor& indices,
                       const tensor& updates) {
  if (value.rank() < 1)
    return errors::invalid_argument("cannot scatter into variable '", var.name(), "' of shape ",
                                    value.shape().to_string(), ": it must have rank at least 1");
  if (updates.rank() == 0) return {};
  tensor_shape expected = indices.shape();
  for (int d = 1; d < value.rank(); ++d) expected.add_dim(value.dim(d));
  if (updates.shape() != expected)
    return errors::invalid_argument("updates of shape ", updates.shape().to_string(),
                                    " must be a scalar or ", expected.to_string(),
                                    " (indices.shape ", indices.shape().to_string(),
                                    " + the shape of variable '", var.name(), "' ",
                                    value.shape().to_string(), " from dimension 1)");
  return {};
}

status sparse_apply_args(const tensor& grad, const tensor& indices) {
  if (indices.rank() != 1)
    return errors::invalid_argument("indices must be a vector, got shape ",
                                    indices.shape().to_string());
  if (grad.rank() < 1 || grad.dim(0) != indices.dim(0))
    return errors::invalid_argument("grad of shape ", grad.shape().to_string(),
                                    " must have one row per index, but indices has shape ",
                                    indices.shape().to_string());
  return {};
}

status_or<tensor_shape> unsorted_segment_shape(const tensor& data, const tensor& ids,
                                               int64_t num_segments) {
  if (num_segments < 0)
    return errors::invalid_argument("num_segments ", num_segments, " is negative");
  bool prefix = ids.rank() <= data.rank();
  for (int d = 0; prefix && d < ids.rank(); ++d) prefix = ids.dim(d) == data.dim(d);
  if (!prefix)
    return errors::invalid_argument("segment_ids of shape ", ids.shape().to_string(),
                                    " must be a prefix of the shape of data ",
                                    data.shape().to_string());
  tensor_shape out{num_segments};
  for (int d = ids.rank(); d < data.rank(); ++d) out.add_dim(data.dim(d));
  return out;
}

}  // namespace caflow::sparse_checks
