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

namespace {

constexpr size_t offset_bytes = sizeof(uint64_t);

// The offsets block of a string tensor of n elements.
size_t string_header_bytes(int64_t n) { return offset_bytes * (static_cast<size_t>(n) + 1); }

uint64_t load_offset(const void* base, int64_t i) {
  uint64_t v;
  std::memcpy(&v, static_cast<const char*>(base) + offset_bytes * static_cast<size_t>(i), sizeof v);
  return v;
}

}  // namespace

tensor::tensor(const std::shared_ptr<allocator>& alloc, dtype type, const tensor_shape& shape)
    : shape_(shape), type_(type) {
  if (type == dtype::string) {  // empty strings: all offsets 0
    const size_t bytes = string_header_bytes(shape.num_elements());
    buf_ = std::make_shared<buffer>(alloc, bytes);
    data_ = buf_->data();
    if (!data_) throw std::bad_alloc();
    std::memset(data_, 0, bytes);
    return;
  }
  const size_t bytes = byte_size();
  if (bytes > 0) {
    buf_ = std::make_shared<buffer>(alloc, bytes);
    data_ = buf_->data();
    if (!data_) throw std::bad_alloc();
  }
}

status_or<tensor> tensor::allocate(const std::shared_ptr<allocator>& alloc, dtype type,
                                   const tensor_shape& shape) {
  if (type == dtype::invalid || type == dtype::resource)
    return errors::invalid_argument("cannot allocate a tensor of dtype ", dtype_name(type));
  if (type == dtype::string) {
    if (static_cast<uint64_t>(shape.num_elements()) > (uint64_t{1} << 40))
      return errors::resource_exhausted("tensor string", shape.to_string(), " is too large");
    const size_t bytes = string_header_bytes(shape.num_elements());
    CAFLOW_ASSIGN_OR_RETURN(tensor t, with_bytes(alloc, type, shape, bytes));
    std::memset(t.data_, 0, bytes);
    return t;
  }
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
  if (buf) t.data_ = static_cast<char*>(buf->data()) + offset;
  assert(!buf || offset + t.byte_size() <= buf->size());
  t.buf_ = std::move(buf);
  return t;
}

status_or<tensor> tensor::with_bytes(const std::shared_ptr<allocator>& alloc, dtype type,
                                     const tensor_shape& shape, size_t bytes) {
  tensor t;
  t.type_ = type;
  t.shape_ = shape;
  if (bytes == 0) return t;
  t.buf_ = std::make_shared<buffer>(alloc, bytes);
  t.data_ = t.buf_->data();
  if (!t.data_)
    return errors::resource_exhausted("allocator '", alloc->name(), "' could not provide ", bytes,
                                      " bytes for a ", dtype_name(type), shape.to_string(),
                                      " tensor");
  return t;
}

tensor tensor::string_scalar(std::string_view value) {
  return from_strings({std::string(value)}, tensor_shape{});
}

tensor tensor::from_strings(const std::vector<std::string>& values, const tensor_shape& shape) {
  const int64_t n = shape.num_elements();
  const size_t header = string_header_bytes(n);
  size_t body = 0;
  for (int64_t i = 0; i < n && i < static_cast<int64_t>(values.size()); ++i)
    body += values[static_cast<size_t>(i)].size();
  auto made = with_bytes(default_allocator(), dtype::string, shape, header + body);
  if (!made.ok()) throw std::bad_alloc();
  tensor t = std::move(made).value();
  char* base = static_cast<char*>(t.data_);
  uint64_t end = 0;
  std::memcpy(base, &end, sizeof end);
  for (int64_t i = 0; i < n; ++i) {
    // Missing values are empty strings, as from_vector fills with T{}.
    if (i < static_cast<int64_t>(values.size())) {
      const std::string& v = values[static_cast<size_t>(i)];
      if (!v.empty()) std::memcpy(base + header + end, v.data(), v.size());
      end += v.size();
    }
    std::memcpy(base + offset_bytes * static_cast<size_t>(i + 1), &end, sizeof end);
  }
  return t;
}

status_or<tensor> tensor::strings_from_bytes(const tensor_shape& shape, const void* bytes,
                                             size_t size) {
  const int64_t n = shape.num_elements();
  if (static_cast<uint64_t>(n) >= size / offset_bytes)
    return errors::data_loss("string", shape.to_string(), " needs ", n + 1, " offsets, but has ",
                             size, " bytes");
  const size_t header = string_header_bytes(n);
  uint64_t last = 0;
  if (load_offset(bytes, 0) != 0)
    return errors::data_loss("string", shape.to_string(), ": its first offset is not 0");
  for (int64_t i = 1; i <= n; ++i) {
    const uint64_t o = load_offset(bytes, i);
    if (o < last || o > size - header)
      return errors::data_loss("string", shape.to_string(), ": offset ", i, " (", o,
                               ") is out of order or past the ", size - header, " string bytes");
    last = o;
  }
  if (header + last != size)
    return errors::data_loss("string", shape.to_string(), ": ", size, " bytes, but its offsets end at ",
                             header + last);
  CAFLOW_ASSIGN_OR_RETURN(tensor t, with_bytes(default_allocator(), dtype::string, shape, size));
  std::memcpy(t.data_, bytes, size);
  return t;
}

size_t tensor::string_byte_size() const {
  if (data_ == nullptr) return 0;
  const int64_t n = num_elements();
  return string_header_bytes(n) + load_offset(data_, n);
}

std::string_view tensor::string_at(int64_t i) const {
  assert(type_ == dtype::string && 0 <= i && i < num_elements());
  const uint64_t begin = load_offset(data_, i), end = load_offset(data_, i + 1);
  return {static_cast<const char*>(data_) + string_header_bytes(num_elements()) + begin,
          static_cast<size_t>(end - begin)};
}

std::vector<std::string> tensor::to_strings() const {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(num_elements()));
  for (int64_t i = 0; i < num_elements(); ++i) out.emplace_back(string_at(i));
  return out;
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
  if (type_ == dtype::string) {  // the offsets are the whole tensor's: copy the rows
    std::vector<std::string> rows;
    for (int64_t i = begin * row; i < end * row; ++i) rows.emplace_back(string_at(i));
    return from_strings(rows, s);
  }
  tensor t = *this;
  t.shape_ = s;
  if (data_) t.data_ = static_cast<char*>(data_) + begin * row * dtype_size(type_);
  return t;
}

tensor tensor::deep_copy() const { return deep_copy(default_allocator()); }

tensor tensor::deep_copy(const std::shared_ptr<allocator>& alloc) const {
  if (!initialized()) return {};
  if (type_ == dtype::string) {
    auto t = with_bytes(alloc, type_, shape_, byte_size());
    if (!t.ok()) throw std::bad_alloc();
    if (byte_size() > 0) std::memcpy(t->data_, data_, byte_size());
    return std::move(t).value();
  }
  tensor t(alloc, type_, shape_);
  if (byte_size() > 0) std::memcpy(t.data_, data_, byte_size());
  return t;
}

std::string tensor::debug_string(int64_t max_elements) const {
  if (!initialized()) return "<uninitialized tensor>";
  std::ostringstream os;
  os << dtype_name(type_) << shape_.to_string() << " {";
  const int64_t n = std::min(num_elements(), max_elements);
  if (type_ == dtype::string)
    for (int64_t i = 0; i < n; ++i) {
      if (i) os << ", ";
      const std::string_view v = string_at(i);
      os << '"';
      for (char c : v.substr(0, 64)) os << (c >= 32 && c < 127 ? c : '?');
      os << (v.size() > 64 ? "...\"" : "\"");
    }
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
