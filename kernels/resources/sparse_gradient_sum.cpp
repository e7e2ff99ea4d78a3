#include "kernels/resources/sparse_gradient_sum.hpp"

#include <cstring>

namespace caflow {

status sparse_gradient_sum::add(const tensor& indices, const tensor& values, add_fn add) {
  if (indices.type() != dtype::int64 || indices.rank() != 1)
    return errors::invalid_argument("gradient indices must be an int64 vector, got ",
                                    dtype_name(indices.type()), indices.shape().to_string());
  if (values.rank() < 1 || values.dim(0) != indices.dim(0))
    return errors::invalid_argument("gradient values of shape ", values.shape().to_string(),
                                    " must have one row per index, but indices has shape ",
                                    indices.shape().to_string());
  std::vector<int64_t> row_dims;
  for (int d = 1; d < values.rank(); ++d) row_dims.push_back(values.dim(d));
  const tensor_shape row_shape(row_dims);
  if (!empty() && (values.type() != type_ || row_shape != row_shape_))
    return errors::invalid_argument("gradient values of ", dtype_name(values.type()),
                                    values.shape().to_string(), " do not match the rows of ",
                                    dtype_name(type_), row_shape_.to_string(),
                                    " accumulated so far");
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t k = 0; k < indices.num_elements(); ++k)
    if (idx[k] < 0)
      return errors::invalid_argument("gradient indices[", k, "] = ", idx[k], " is negative");
  if (empty()) {
    type_ = values.type();
    row_shape_ = row_shape;
    row_elems_ = row_shape.num_elements();
  }
  const size_t row_bytes = static_cast<size_t>(row_elems_) * dtype_size(type_);
  const auto* src = static_cast<const unsigned char*>(values.raw_data());
  const int64_t gradient = gradients_++;
  for (int64_t k = 0; k < indices.num_elements(); ++k) {
    auto [it, fresh] = slot_of_.try_emplace(idx[k], counts_.size());
    const size_t slot = it->second;
    const unsigned char* row = src + static_cast<size_t>(k) * row_bytes;
    if (fresh) {
      rows_.insert(rows_.end(), row, row + row_bytes);
      counts_.push_back(1);
      last_gradient_.push_back(gradient);
      continue;
    }
    add(rows_.data() + slot * row_bytes, row, row_elems_);
    if (last_gradient_[slot] != gradient) {
      ++counts_[slot];
      last_gradient_[slot] = gradient;
    }
  }
  return {};
}

status_or<sparse_gradient_sum::rows> sparse_gradient_sum::take(
    const std::shared_ptr<allocator>& alloc) {
  const int64_t n = static_cast<int64_t>(counts_.size());
  std::vector<int64_t> value_dims{n};
  for (int d = 0; d < row_shape_.rank(); ++d) value_dims.push_back(row_shape_.dim(d));
  rows out;
  CAFLOW_ASSIGN_OR_RETURN(out.indices, tensor::allocate(alloc, dtype::int64, tensor_shape{n}));
  if (type_ == dtype::invalid) return out;  // nothing added: the caller knows the row shape
  CAFLOW_ASSIGN_OR_RETURN(out.values, tensor::allocate(alloc, type_, tensor_shape(value_dims)));
  const size_t row_bytes = static_cast<size_t>(row_elems_) * dtype_size(type_);
  int64_t* idx = out.indices.data<int64_t>();
  auto* dst = static_cast<unsigned char*>(out.values.raw_data());
  out.counts.reserve(counts_.size());
  for (const auto& [index, slot] : slot_of_) {
    *idx++ = index;
    if (row_bytes > 0) std::memcpy(dst, rows_.data() + slot * row_bytes, row_bytes);
    dst += row_bytes;
    out.counts.push_back(counts_[slot]);
  }
  *this = sparse_gradient_sum();
  return out;
}

}  // namespace caflow
