#pragma once
// Tensor shapes. `tensor_shape` is fully known (every dim >= 0); `partial_shape` is what
// shape inference and Placeholder attrs work with (unknown rank, or dims of -1).
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

inline constexpr int max_rank = 8;

// "[2,3]", "[]" for none: the one way dims, indices, axes and permutations are written in
// messages. Past `max_shown` entries it ends in ",...]" (for dims from an untrusted header).
std::string format_dims(std::span<const int64_t> dims, size_t max_shown = SIZE_MAX);

class tensor_shape {
 public:
  tensor_shape() = default;  // a scalar
  // REQUIRES: every dim >= 0 and at most max_rank dims; use `make` for untrusted input.
  tensor_shape(std::initializer_list<int64_t> dims);
  explicit tensor_shape(std::span<const int64_t> dims);
  // Validates dims (non-negative, rank, element count fits in int64).
  static status_or<tensor_shape> make(std::span<const int64_t> dims);

  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t num_elements() const { return num_elements_; }
  std::span<const int64_t> dims() const { return {dims_.data(), static_cast<size_t>(rank_)}; }
  std::vector<int64_t> dim_vector() const { return {dims_.begin(), dims_.begin() + rank_}; }
  bool is_scalar() const { return rank_ == 0; }

  // REQUIRES: size >= 0 and rank() < max_rank.
  void add_dim(int64_t size);
  void set_dim(int i, int64_t size);
  void remove_dim(int i);
  void insert_dim(int i, int64_t size);

  std::string to_string() const;  // "[2,3]", "[]" for a scalar
  bool operator==(const tensor_shape& o) const;
  bool operator!=(const tensor_shape& o) const { return !(*this == o); }

 private:
  void recount();
  std::array<int64_t, max_rank> dims_{};
  int rank_ = 0;
  int64_t num_elements_ = 1;
};

class partial_shape {
 public:
  partial_shape() = default;  // unknown rank
  partial_shape(std::initializer_list<int64_t> dims);  // -1 marks an unknown dim
  explicit partial_shape(std::span<const int64_t> dims);
  partial_shape(const tensor_shape& s);  // NOLINT: a known shape is a partial one

  static partial_shape unknown() { return {}; }
  static partial_shape unknown_of_rank(int rank);
  static status_or<partial_shape> make(std::span<const int64_t> dims);

  bool rank_known() const { return rank_ >= 0; }
  int rank() const { return rank_; }  // -1 when unknown
  int64_t dim(int i) const { return dims_[i]; }  // -1 when unknown
  // Dim i, or -1 when the rank is unknown too: for shape functions that read an input's dims
  // before they know its rank.
  int64_t dim_or_unknown(int i) const { return rank_known() ? dims_[i] : -1; }
  bool fully_defined() const;
  std::vector<int64_t> dim_vector() const;
  // REQUIRES: fully_defined().
  tensor_shape to_shape() const;

  // True when some shape could satisfy both.
  bool compatible_with(const partial_shape& o) const;
  // The most specific shape compatible with both, or an error describing the clash.
  status_or<partial_shape> merge(const partial_shape& o) const;

  std::string to_string() const;  // "[?,3]", "<unknown>"
  bool operator==(const partial_shape& o) const;

 private:
  std::array<int64_t, max_rank> dims_{};
  int rank_ = -1;
};

}  // namespace caflow
