#pragma once
// Memory for tensor buffers. Devices own counting allocators (devices/); graph code only
// sees this interface. Allocators are shared so a tensor that outlives its device still
// returns its memory to a live allocator.
#include <cstddef>
#include <memory>

namespace caflow {

inline constexpr size_t tensor_alignment = 64;

class allocator {
 public:
  virtual ~allocator() = default;
  virtual const char* name() const = 0;
  // Returns memory aligned to `tensor_alignment`, or nullptr when out of memory.
  virtual void* allocate(size_t bytes) = 0;
  // REQUIRES: p came from allocate(bytes) of this allocator.
  virtual void deallocate(void* p, size_t bytes) = 0;
};

// Plain aligned heap memory, no accounting; stateless, so sharing it is safe.
const std::shared_ptr<allocator>& default_allocator();

}  // namespace caflow
