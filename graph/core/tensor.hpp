#pragma once
// A tensor is a dtype, a shape and a shared, ref-counted, 64-byte-aligned buffer. Copying a
// tensor copies a pointer; the bytes are shared (zero-copy inside a process). Code that
// mutates a buffer in place must own it alone (`buffer_unique()`), or copy first.
//
// A string tensor (dtype::string) of n elements keeps its strings in one flat block, so that
// every path that moves a tensor's bytes (a message, a copy, a checkpoint) moves strings too:
// n + 1 little-endian uint64 offsets, the first 0 and each the end of one string, followed by
// the strings' bytes back to back. Its byte_size() is 8 (n + 1) + the last offset. String
// tensors are built whole (from_strings) and never written in place; a fresh one holds empty
// strings.
#include <cstring>
#include <string_view>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/shape.hpp"
#include "graph/core/types.hpp"

namespace caflow {

class buffer {
 public:
  // Allocates `bytes` from `alloc`; check `data() != nullptr` for bytes > 0.
  buffer(std::shared_ptr<allocator> alloc, size_t bytes);
  ~buffer();
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  const allocator& owner() const { return *alloc_; }
  memory_space* space() const { return space_; }

 private:
  std::shared_ptr<allocator> alloc_;
  memory_space* space_;  // the allocator's, read once: the executor checks it at every input
  void* data_ = nullptr;
  size_t size_ = 0;
};

class tensor {
 public:
  tensor() = default;  // not initialized: dtype invalid
  // Allocates from the default allocator. Elements are left uninitialized.
  tensor(dtype type, const tensor_shape& shape);
  tensor(const std::shared_ptr<allocator>& alloc, dtype type, const tensor_shape& shape);
  // Like the constructor, but reports allocation failure instead of asserting.
  static status_or<tensor> allocate(const std::shared_ptr<allocator>& alloc, dtype type,
                                    const tensor_shape& shape);
  // A view of `buf` starting at byte `offset`; REQUIRES the bytes to fit.
  static tensor view(std::shared_ptr<buffer> buf, size_t offset, dtype type,
                     const tensor_shape& shape);

  template <class T>
  static tensor scalar(T value);
  static tensor string_scalar(std::string_view value);
  static tensor from_strings(const std::vector<std::string>& values, const tensor_shape& shape);
  static tensor from_strings(const std::vector<std::string>& values) {
    return from_strings(values, tensor_shape{static_cast<int64_t>(values.size())});
  }
  // A string tensor from `size` bytes in the layout above: the layout is checked (offsets in
  // order and within the bytes), so bytes from outside can be handed in.
  static status_or<tensor> strings_from_bytes(const tensor_shape& shape, const void* bytes,
                                              size_t size);
  template <class T>
  static tensor from_vector(const std::vector<T>& values, const tensor_shape& shape);
  template <class T>
  static tensor from_vector(const std::vector<T>& values) {
    return from_vector(values, tensor_shape{static_cast<int64_t>(values.size())});
  }
  // A tensor of `shape` with every element `value`.
  template <class T>
  static tensor filled(const tensor_shape& shape, T value);

  bool initialized() const { return type_ != dtype::invalid; }
  dtype type() const { return type_; }
  const tensor_shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t byte_size() const {
    return type_ == dtype::string ? string_byte_size()
                                  : static_cast<size_t>(num_elements()) * dtype_size(type_);
  }

  void* raw_data() const { return data_; }
  template <class T>
  T* data() const { return static_cast<T*>(data_); }
  template <class T>
  T scalar_value() const { return *data<T>(); }
  template <class T>
  std::vector<T> to_vector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + num_elements());
  }

  // The i-th string of a string tensor, a view into its bytes.
  std::string_view string_at(int64_t i) const;
  std::vector<std::string> to_strings() const;

  const std::shared_ptr<buffer>& buf() const { return buf_; }
  // The device memory holding the bytes; nullptr for host memory (and for no bytes at all).
  memory_space* space() const { return buf_ ? buf_->space() : nullptr; }
  bool shares_buffer_with(const tensor& o) const { return buf_ && buf_ == o.buf_; }
  // True when no other tensor shares the bytes, so they may be mutated in place.
  bool buffer_unique() const { return !buf_ || buf_.use_count() == 1; }

  // Same bytes, new shape. REQUIRES: same number of elements.
  tensor reshaped(const tensor_shape& shape) const;
  // Rows [begin, end) of dimension 0, sharing the bytes.
  tensor slice_dim0(int64_t begin, int64_t end) const;
  tensor deep_copy() const;
  tensor deep_copy(const std::shared_ptr<allocator>& alloc) const;

  // "float32[2,3] {1, 2, 3, 4, 5, 6}", at most `max_elements` values shown.
  std::string debug_string(int64_t max_elements = 16) const;
  // Same dtype, shape and bytes.
  bool equals(const tensor& o) const;
  bool operator==(const tensor& o) const { return equals(o); }

 private:
  size_t string_byte_size() const;
  // Allocates `bytes` for a tensor of `type` and `shape`, contents unset.
  static status_or<tensor> with_bytes(const std::shared_ptr<allocator>& alloc, dtype type,
                                      const tensor_shape& shape, size_t bytes);

  std::shared_ptr<buffer> buf_;
  void* data_ = nullptr;
  tensor_shape shape_;
  dtype type_ = dtype::invalid;
};

template <class T>
tensor tensor::scalar(T value) {
  tensor t(dtype_v<T>, tensor_shape{});
  *t.data<T>() = value;
  return t;
}

template <class T>
tensor tensor::from_vector(const std::vector<T>& values, const tensor_shape& shape) {
  tensor t(dtype_v<T>, shape);
  T* out = t.data<T>();
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(values.size()), shape.num_elements());
  for (int64_t i = 0; i < n; ++i) out[i] = values[i];
  for (int64_t i = n; i < shape.num_elements(); ++i) out[i] = T{};
  return t;
}

template <class T>
tensor tensor::filled(const tensor_shape& shape, T value) {
  tensor t(dtype_v<T>, shape);
  T* out = t.data<T>();
  for (int64_t i = 0; i < shape.num_elements(); ++i) out[i] = value;
  return t;
}

}  // namespace caflow
