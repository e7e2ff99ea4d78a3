#pragma once
// Memory for tensor buffers. Devices own counting allocators (devices/); graph code only
// sees this interface. Allocators are shared so a tensor that outlives its device still
// returns its memory to a live allocator.
#include <cstddef>
#include <memory>
#include <string>

#include "graph/core/status.hpp"

namespace caflow {

inline constexpr size_t tensor_alignment = 64;

class tensor;

// Memory that only its device can touch: a GPU's memory, or the test accelerator's arena.
// Host memory has no memory_space (a null pointer): any CPU code may read it. A tensor knows
// its space through its buffer's allocator, so the runtime can check that every kernel reads
// the memory it can, and copy a value to where its consumer needs it.
class memory_space {
 public:
  virtual ~memory_space() = default;
  // The owning device's full name, for messages.
  virtual const std::string& space_name() const = 0;
  // `t` (in this space) copied to host memory, once the work that writes it is done.
  virtual status_or<tensor> copy_to_host(const tensor& t) = 0;
};

class allocator {
 public:
  virtual ~allocator() = default;
  virtual const char* name() const = 0;
  // Returns memory aligned to `tensor_alignment`, or nullptr when out of memory.
  virtual void* allocate(size_t bytes) = 0;
  // REQUIRES: p came from allocate(bytes) of this allocator.
  virtual void deallocate(void* p, size_t bytes) = 0;
  // Where the bytes live: nullptr for host memory.
  virtual memory_space* space() const { return nullptr; }
  // Whether the sole owner in this process of the bytes at `p` (from allocate) may write them:
  // false while another process may read them (a shared memory block handed to a receiver,
  // or one viewed from a sender), so a variable's update copies first (kernels/framework/in_place.hpp).
  virtual bool writable_in_place(const void* /*p*/) const { return true; }
};

// Plain aligned heap memory, no accounting; stateless, so sharing it is safe.
const std::shared_ptr<allocator>& default_allocator();

}  // namespace caflow
