#include "devices/caching_allocator.hpp"

#include <bit>
#include <new>

namespace caflow {

caching_allocator::caching_allocator(std::shared_ptr<allocator> base, size_t min_bytes,
                                     size_t max_cached_bytes)
    : base_(std::move(base)),
      min_bytes_(min_bytes),
      max_cached_bytes_(caches ? max_cached_bytes : 0) {}

caching_allocator::~caching_allocator() { release_cached(); }

size_t caching_allocator::size_class(size_t bytes) {
  if (bytes < 8) return bytes;
  const size_t quarter = std::bit_floor(bytes) / 4;
  return (bytes + quarter - 1) / quarter * quarter;
}

void* caching_allocator::allocate(size_t bytes) {
  if (bytes <= small_max_bytes && bytes > 0 && max_cached_bytes_ != 0) {
    const size_t k = (bytes - 1) / small_class_bytes;
    {
      std::lock_guard lock(small_mu_);
      if (auto& list = small_free_[k]; !list.empty()) {
        void* p = list.back();
        list.pop_back();
        small_cached_ -= (k + 1) * small_class_bytes;
        return p;
      }
    }
    return base_->allocate((k + 1) * small_class_bytes);
  }
  if (bytes < min_bytes_ || max_cached_bytes_ == 0) return base_->allocate(bytes);
  const size_t cls = size_class(bytes);
  {
    std::lock_guard lock(mu_);
    if (auto it = free_.find(cls); it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= cls;
      return p;
    }
  }
  if (void* p = base_->allocate(cls)) return p;
  // Out of memory: what the cache holds in other sizes may be what is missing.
  release_cached();
  return base_->allocate(cls);
}

void caching_allocator::deallocate(void* p, size_t bytes) {
  if (bytes <= small_max_bytes && bytes > 0 && max_cached_bytes_ != 0) {
    const size_t k = (bytes - 1) / small_class_bytes;
    const size_t cls = (k + 1) * small_class_bytes;
    {
      std::lock_guard lock(small_mu_);
      if (small_cached_ + cls <= max_small_cached_bytes) {
        try {
          small_free_[k].push_back(p);
          small_cached_ += cls;
          return;
        } catch (const std::bad_alloc&) {
          // No room for the list entry: the block goes back instead.
        }
      }
    }
    base_->deallocate(p, cls);
    return;
  }
  if (bytes < min_bytes_ || max_cached_bytes_ == 0) {
    base_->deallocate(p, bytes);
    return;
  }
  const size_t cls = size_class(bytes);
  {
    std::lock_guard lock(mu_);
    if (cached_ + cls <= max_cached_bytes_) {
      try {
        free_[cls].push_back(p);
        cached_ += cls;
        return;
      } catch (const std::bad_alloc&) {
        // No room for the list entry: the block goes back instead.
      }
    }
  }
  base_->deallocate(p, cls);
}

size_t caching_allocator::cached_bytes() const {
  std::lock_guard lock(mu_);
  return cached_;
}

size_t caching_allocator::small_cached_bytes() const {
  std::lock_guard lock(small_mu_);
  return small_cached_;
}

void caching_allocator::release_cached() {
  std::unordered_map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard lock(mu_);
    blocks.swap(free_);
    cached_ = 0;
  }
  for (auto& [cls, list] : blocks)
    for (void* p : list) base_->deallocate(p, cls);
  std::array<std::vector<void*>, small_max_bytes / small_class_bytes> small;
  {
    std::lock_guard lock(small_mu_);
    small.swap(small_free_);
    small_cached_ = 0;
  }
  for (size_t k = 0; k < small.size(); ++k)
    for (void* p : small[k]) base_->deallocate(p, (k + 1) * small_class_bytes);
}

}  // namespace caflow
