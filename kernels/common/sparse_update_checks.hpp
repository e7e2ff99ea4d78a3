#pragma once
// The checks of the row updates of a variable (Scatter* and SparseApply*) and of the segment
// sums that scatter rows into a fresh output (UnsortedSegmentSum), shared by the CPU
// and GPU kernels so both refuse the same inputs with the same words. Each runs before the first
// write: a failed step leaves the variable as it was.
#include <cstdint>

#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "kernels/common/element_name.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow::sparse_checks {

// Scatter*: `updates` must be a scalar or indices.shape + value.shape[1:], and the variable
// must have rank at least 1.
status scatter_updates(const tensor& value, const variable& var, const tensor& indices,
                       const tensor& updates);

// Scatter*: every index names a row of the variable's value.
template <class Index>
status scatter_indices(const tensor& indices, const variable& var, const tensor& value) {
  const Index* idx = indices.data<Index>();
  const int64_t rows = value.dim(0);
  for (int64_t k = 0; k < indices.num_elements(); ++k)
    if (idx[k] < 0 || idx[k] >= rows)
      return errors::invalid_argument(element_name("indices", indices.shape(), k), " = ", idx[k],
                                      " is not in [0, ", rows,
                                      "), the first dimension of variable '", var.name(),
                                      "' of shape ", value.shape().to_string());
  return {};
}

// SparseApply*, before locking: indices a vector, grad one row per index.
status sparse_apply_args(const tensor& grad, const tensor& indices);

// SparseApply*, under the locks: grad's rows have var's row shape and every index names a row
// of var.
template <class Index>
status sparse_apply_rows(const tensor& grad, const tensor& indices, const variable& var,
                         const tensor& value) {
  bool rows_match = value.rank() >= 1 && value.rank() == grad.rank();
  for (int d = 1; rows_match && d < value.rank(); ++d) rows_match = value.dim(d) == grad.dim(d);
  if (!rows_match)
    return errors::invalid_argument("grad of shape ", grad.shape().to_string(),
                                    " does not match var '", var.name(), "' of shape ",
                                    value.shape().to_string(), " in dimensions 1 and up");
  const Index* idx = indices.data<Index>();
  for (int64_t k = 0; k < indices.num_elements(); ++k)
    if (idx[k] < 0 || idx[k] >= value.dim(0))
      return errors::invalid_argument("indices[", k, "] = ", idx[k], " is not in [0, ",
                                      value.dim(0), "), the first dimension of var '", var.name(),
                                      "' of shape ", value.shape().to_string());
  return {};
}

// SparseApplyFtrl's hyperparameters: the formulas divide by lr and assume non-negative
// regularization strengths (as TF's).
template <class T>
status ftrl_hyperparameters(T lr, T l1, T l2, T lr_power) {
  if (!(lr > T(0))) return errors::invalid_argument("lr must be positive, got ", lr);
  if (!(l1 >= T(0))) return errors::invalid_argument("l1 must be non-negative, got ", l1);
  if (!(l2 >= T(0))) return errors::invalid_argument("l2 must be non-negative, got ", l2);
  if (!(lr_power <= T(0)))
    return errors::invalid_argument("lr_power must not be positive, got ", lr_power);
  return {};
}

// UnsortedSegmentSum: num_segments >= 0 and segment_ids' shape a prefix of data's; gives the
// output's shape, [num_segments] + data.shape[ids.rank:].
status_or<tensor_shape> unsorted_segment_shape(const tensor& data, const tensor& ids,
                                               int64_t num_segments);

// UnsortedSegmentSum: every id below num_segments (a negative one drops its row, as TF's).
template <class Index>
status unsorted_segment_ids(const tensor& ids, int64_t num_segments) {
  const Index* id = ids.data<Index>();
  for (int64_t k = 0; k < ids.num_elements(); ++k)
    if (id[k] >= num_segments)
      return errors::invalid_argument("segment_ids[", k, "] (flat) = ", id[k],
                                      " is not less than num_segments ", num_segments);
  return {};
}

}  // namespace caflow::sparse_checks
