#pragma once
// Buffers for tensors that arrive from the network. A fresh buffer of many MiB is mmap'ed and
// faults in every page on its first write: 27 ms for 64 MiB here, about half of what moving it
// over loopback takes. A receiver gets tensors of one size step after step, so this keeps the
// last buffer freed and hands it out again for the next allocation of that size.
// Thread-safe: tensors die on executor threads.
#include <cstddef>
#include <mutex>

#include "graph/core/allocator.hpp"

namespace caflow {

class recycling_allocator final : public allocator {
 public:
  explicit recycling_allocator(const char* name) : name_(name) {}
  ~recycling_allocator() override;
  const char* name() const override { return name_; }
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;

 private:
  const char* name_;
  std::mutex mu_;
  void* idle_ = nullptr;
  size_t idle_bytes_ = 0;
};

}  // namespace caflow
