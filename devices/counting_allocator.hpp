#pragma once
// Wraps another allocator and counts bytes in use, the peak, and allocations, with relaxed
// atomics (no lock on the allocation path).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "graph/core/allocator.hpp"

namespace caflow {

struct allocator_stats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t num_allocs = 0;
  int64_t bytes_limit = 0;  // 0: unlimited
};

class counting_allocator final : public allocator {
 public:
  // `limit_bytes` of 0 means no limit; past the limit allocate() returns nullptr.
  counting_allocator(std::string name, std::shared_ptr<allocator> base, int64_t limit_bytes = 0);
  const char* name() const override { return name_.c_str(); }
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;
  bool writable_in_place(const void* p) const override { return base_->writable_in_place(p); }
  allocator_stats stats() const;
  void reset_peak();

 private:
  std::string name_;
  std::shared_ptr<allocator> base_;
  int64_t limit_;
  std::atomic<int64_t> in_use_{0}, peak_{0}, allocs_{0};
};

}  // namespace caflow
