#include "net/recycling_allocator.hpp"

#include <utility>

namespace caflow {

recycling_allocator::~recycling_allocator() {
  if (idle_) default_allocator()->deallocate(idle_, idle_bytes_);
}

void* recycling_allocator::allocate(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_ && idle_bytes_ == bytes) return std::exchange(idle_, nullptr);
  }
  return default_allocator()->allocate(bytes);
}

void recycling_allocator::deallocate(void* p, size_t bytes) {
  void* drop = p;
  size_t drop_bytes = bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_ || idle_bytes_ != bytes) {  // keep the newest size: the current one
      std::swap(drop, idle_);
      std::swap(drop_bytes, idle_bytes_);
    }
  }
  if (drop) default_allocator()->deallocate(drop, drop_bytes);
}

}  // namespace caflow
