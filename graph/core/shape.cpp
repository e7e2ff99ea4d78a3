#include "graph/core/shape.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace caflow {

tensor_shape::tensor_shape(std::initializer_list<int64_t> dims)
    : tensor_shape(std::span<const int64_t>(dims.begin(), dims.size())) {}

tensor_shape::tensor_shape(std::span<const int64_t> dims) {
  assert(dims.size() <= max_rank);
  rank_ = static_cast<int>(dims.size());
  for (int i = 0; i < rank_; ++i) dims_[i] = dims[i];
  recount();
}

status_or<tensor_shape> tensor_shape::make(std::span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("shape of rank ", dims.size(), " exceeds the maximum rank ",
                                    max_rank);
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return errors::invalid_argument("shape dimension ", d, " is negative");
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return errors::invalid_argument("shape with more than 2^63 elements");
    n *= d;
  }
  return tensor_shape(dims);
}

void tensor_shape::recount() {
  num_elements_ = 1;
  for (int i = 0; i < rank_; ++i) num_elements_ *= dims_[i];
}

void tensor_shape::add_dim(int64_t size) {
  assert(rank_ < max_rank && size >= 0);
  dims_[rank_++] = size;
  num_elements_ *= size;
}

void tensor_shape::set_dim(int i, int64_t size) {
  dims_[i] = size;
  recount();
}

void tensor_shape::remove_dim(int i) {
  for (int k = i; k + 1 < rank_; ++k) dims_[k] = dims_[k + 1];
  --rank_;
  recount();
}

void tensor_shape::insert_dim(int i, int64_t size) {
  assert(rank_ < max_rank);
  for (int k = rank_; k > i; --k) dims_[k] = dims_[k - 1];
  dims_[i] = size;
  ++rank_;
  recount();
}

std::string format_dims(std::span<const int64_t> dims, size_t max_shown) {
  std::string s = "[";
  const size_t shown = std::min(dims.size(), max_shown);
  for (size_t i = 0; i < shown; ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  return s + (shown < dims.size() ? ",...]" : "]");
}

std::string tensor_shape::to_string() const { return format_dims(dims()); }

bool tensor_shape::operator==(const tensor_shape& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (dims_[i] != o.dims_[i]) return false;
  return true;
}

partial_shape::partial_shape(std::initializer_list<int64_t> dims)
    : partial_shape(std::span<const int64_t>(dims.begin(), dims.size())) {}

partial_shape::partial_shape(std::span<const int64_t> dims) {
  assert(dims.size() <= max_rank);
  rank_ = static_cast<int>(dims.size());
  for (int i = 0; i < rank_; ++i) dims_[i] = dims[i] < 0 ? -1 : dims[i];
}

partial_shape::partial_shape(const tensor_shape& s) : partial_shape(s.dims()) {}

partial_shape partial_shape::unknown_of_rank(int rank) {
  partial_shape p;
  p.rank_ = rank;
  for (int i = 0; i < rank; ++i) p.dims_[i] = -1;
  return p;
}

status_or<partial_shape> partial_shape::make(std::span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("shape of rank ", dims.size(), " exceeds the maximum rank ",
                                    max_rank);
  for (int64_t d : dims)
    if (d < -1) return errors::invalid_argument("shape dimension ", d, " is invalid");
  return partial_shape(dims);
}

bool partial_shape::fully_defined() const {
  if (rank_ < 0) return false;
  for (int i = 0; i < rank_; ++i)
    if (dims_[i] < 0) return false;
  return true;
}

std::vector<int64_t> partial_shape::dim_vector() const {
  if (rank_ < 0) return {};
  return {dims_.begin(), dims_.begin() + rank_};
}

tensor_shape partial_shape::to_shape() const {
  return tensor_shape(std::span<const int64_t>(dims_.data(), static_cast<size_t>(rank_)));
}

bool partial_shape::compatible_with(const partial_shape& o) const { return merge(o).ok(); }

status_or<partial_shape> partial_shape::merge(const partial_shape& o) const {
  if (!rank_known()) return o;
  if (!o.rank_known()) return *this;
  if (rank_ != o.rank_)
    return errors::invalid_argument("shapes ", to_string(), " and ", o.to_string(),
                                    " have different ranks");
  partial_shape out = *this;
  for (int i = 0; i < rank_; ++i) {
    if (dims_[i] < 0) {
      out.dims_[i] = o.dims_[i];
    } else if (o.dims_[i] >= 0 && o.dims_[i] != dims_[i]) {
      return errors::invalid_argument("shapes ", to_string(), " and ", o.to_string(),
                                      " differ in dimension ", i);
    }
  }
  return out;
}

std::string partial_shape::to_string() const {
  if (rank_ < 0) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ',';
    s += dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]);
  }
  return s + "]";
}

bool partial_shape::operator==(const partial_shape& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (dims_[i] != o.dims_[i]) return false;
  return true;
}

}  // namespace caflow
