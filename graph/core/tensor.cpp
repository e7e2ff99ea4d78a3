#include "graph/core/tensor.hpp"

#include <sys/mman.h>

#include <cassert>
#include <cstdlib>
#include <new>
#include <sstream>

namespace caflow {
namespace {

// Buffers of a huge page or more are huge-page aligned and asked to be backed by transparent
// huge pages: a fresh 48 MiB buffer otherwise takes 12,288 page faults as it is first written,
// which on a virtualized host cost more than the copy itself, and a network loop that fills
// such a buffer (a chunked feed, a fetch) stalled long enough under load for its peers to
// miss its heartbeats.
constexpr size_t huge_page_bytes = size_t{2} << 20;

class aligned_heap_allocator final : public allocator {
 public:
  const char* name() const override { return "heap"; }
  void* allocate(size_t bytes) override {
    if (bytes >= huge_page_bytes) {
      const size_t rounded = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
      void* p = std::aligned_alloc(huge_page_bytes, rounded);
      if (p != nullptr) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is fine
      return p;
    }
    const size_t rounded = (bytes + tensor_alignment - 1) / tensor_alignment * tensor_alignment;
    return std::aligned_alloc(tensor_alignment, rounded);
  }
  void deallocate(void* p, size_t) override { std::free(p); }
};

}  // namespace

const std::shared_ptr<allocator>& default_allocator() {
  static const std::shared_ptr<allocator> instance = std::make_shared<aligned_heap_allocator>();
  return instance;
}

buffer::buffer(std::shared_ptr<allocator> alloc, size_t bytes)
    : alloc_(std::move(alloc)), space_(alloc_->space()), size_(bytes) {
  if (bytes > 0) data_ = alloc_->allocate(bytes);
}

buffer::~buffer() {
  if (data_) alloc_->deallocate(data_, size_);
}

tensor::tensor(dtype type, const tensor_shape& shape) : tensor(default_allocator(), type, shape) {}

tensor::tensor(const std::shared_ptr<allocator>& alloc, dtype type, const tensor_shape& shape)
    : shape_(shape), type_(type) {
  const size_t bytes = byte_size();
  if (bytes > 0) {
    buf_ = std::make_shared<buffer>(alloc, bytes);
    data_ = buf_->data();
    if (!data_) throw std::bad_alloc();
  }
}

status_or<tensor> tensor::allocate(const std::shared_ptr<allocator>& alloc, dtype type,
                                   const tensor_shape& shape) {
  if (type == dtype::invalid) return errors::invalid_argument("cannot allocate a tensor of dtype invalid");
  tensor t;
  t.type_ = type;
  t.shape_ = shape;
  const size_t bytes = t.byte_size();
  if (shape.num_elements() > 0 &&
      bytes / dtype_size(type) != static_cast<size_t>(shape.num_elements()))
    return errors::resource_exhausted("tensor ", dtype_name(type), shape.to_string(),
                                      " is too large");
  if (bytes > 0) {
    t.buf_ = std::make_shared<buffer>(alloc, bytes);
    t.data_ = t.buf_->data();
    if (!t.data_)
      return errors::resource_exhausted("allocator '", alloc->name(), "' could not provide ",
                                        bytes, " bytes for a ", dtype_name(type),
                                        shape.to_string(), " tensor");
  }
  return t;
}

tensor tensor::view(std::shared_ptr<buffer> buf, size_t offset, dtype type,
                    const tensor_shape& shape) {
  tensor t;
  t.type_ = type;
  t.shape_ = shape;
  assert(!buf || offset + t.byte_size() <= buf->size());
  if (buf) t.data_ = static_cast<char*>(buf->data()) + offset;
  t.buf_ = std::move(buf);
  return t;
}

tensor tensor::reshaped(const tensor_shape& shape) const {
  assert(shape.num_elements() == num_elements());
  tensor t = *this;
  t.shape_ = shape;
  return t;
}

tensor tensor::slice_dim0(int64_t begin, int64_t end) const {
  assert(rank() >= 1 && 0 <= begin && begin <= end && end <= dim(0));
  tensor_shape s = shape_;
  s.set_dim(0, end - begin);
  const int64_t row = dim(0) == 0 ? 0 : num_elements() / dim(0);
  tensor t = *this;
  t.shape_ = s;
  if (data_) t.data_ = static_cast<char*>(data_) + begin * row * dtype_size(type_);
  return t;
}

tensor tensor::deep_copy() const { return deep_copy(default_allocator()); }

tensor tensor::deep_copy(const std::shared_ptr<allocator>& alloc) const {
  if (!initialized()) return {};
  tensor t(alloc, type_, shape_);
  if (byte_size() > 0) std::memcpy(t.data_, data_, byte_size());
  return t;
}

std::string tensor::debug_string(int64_t max_elements) const {
  if (!initialized()) return "<uninitialized tensor>";
  std::ostringstream os;
  os << dtype_name(type_) << shape_.to_string() << " {";
  const int64_t n = std::min(num_elements(), max_elements);
  visit_dtype(type_, [&]<class T>() {
    const T* p = data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (i) os << ", ";
      if constexpr (std::is_same_v<T, bool>) os << (p[i] ? "true" : "false");
      else if constexpr (sizeof(T) == 1) os << static_cast<int>(p[i]);
      else os << p[i];
    }
  });
  if (num_elements() > n) os << ", ...";
  os << "}";
  return os.str();
}

bool tensor::equals(const tensor& o) const {
  if (type_ != o.type_ || shape_ != o.shape_) return false;
  return byte_size() == 0 || std::memcmp(data_, o.data_, byte_size()) == 0;
}

}  // namespace caflow
