#include "devices/counting_allocator.hpp"

namespace caflow {

counting_allocator::counting_allocator(std::string name, std::shared_ptr<allocator> base,
                                       int64_t limit_bytes)
    : name_(std::move(name)), base_(std::move(base)), limit_(limit_bytes) {}

void* counting_allocator::allocate(size_t bytes) {
  const auto n = static_cast<int64_t>(bytes);
  const int64_t now = in_use_.fetch_add(n, std::memory_order_relaxed) + n;
  if (limit_ > 0 && now > limit_) {
    in_use_.fetch_sub(n, std::memory_order_relaxed);
    return nullptr;
  }
  void* p = base_->allocate(bytes);
  if (!p) {
    in_use_.fetch_sub(n, std::memory_order_relaxed);
    return nullptr;
  }
  allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void counting_allocator::deallocate(void* p, size_t bytes) {
  base_->deallocate(p, bytes);
  in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

allocator_stats counting_allocator::stats() const {
  return {in_use_.load(std::memory_order_relaxed), peak_.load(std::memory_order_relaxed),
          allocs_.load(std::memory_order_relaxed), limit_};
}

void counting_allocator::reset_peak() { peak_.store(in_use_.load()); }

}  // namespace caflow
