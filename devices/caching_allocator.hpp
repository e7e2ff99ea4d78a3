#pragma once
// Keeps freed large blocks and hands them to later allocations of the same size class instead
// of returning them to the OS. A training step allocates the same big activations and
// gradients every step; without the cache each is a fresh mmap whose every 4 KiB page faults
// (and is zeroed by the kernel) on first touch, about 5% of a CNN step.
//
// Small blocks (scalars, shapes, a step's small outputs: up to `small_max_bytes`) are kept in
// free lists of 64-byte classes too: the base's aligned allocation (glibc's memalign) takes its
// slow path every time, which was the largest cost of a small step after the executor.
// Thread-safe: one mutex around the large free lists and one around the small ones.
#include <cstddef>
#include <cstdint>
#include <array>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "graph/core/allocator.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CAFLOW_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAFLOW_ASAN 1
#endif
#endif

namespace caflow {

class caching_allocator final : public allocator {
 public:
  // False under AddressSanitizer, where every block goes straight back to the base: a reused
  // block would hide a use after free of a tensor.
#if defined(CAFLOW_ASAN)
  static constexpr bool caches = false;
#else
  static constexpr bool caches = true;
#endif
  static constexpr size_t default_min_bytes = size_t{256} << 10;
  static constexpr size_t default_max_cached_bytes = size_t{1} << 30;
  static constexpr size_t small_max_bytes = 512;
  static constexpr size_t small_class_bytes = 64;
  static constexpr size_t max_small_cached_bytes = size_t{8} << 20;

  // Blocks of at least `min_bytes` are cached, at most `max_cached_bytes` of them in all
  // (a block that would pass the cap goes back to `base`).
  explicit caching_allocator(std::shared_ptr<allocator> base,
                             size_t min_bytes = default_min_bytes,
                             size_t max_cached_bytes = default_max_cached_bytes);
  ~caching_allocator() override;
  caching_allocator(const caching_allocator&) = delete;
  caching_allocator& operator=(const caching_allocator&) = delete;

  const char* name() const override { return "caching"; }
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;

  // Bytes held in the large free lists (not in use by any tensor).
  size_t cached_bytes() const;
  // Bytes held in the small free lists.
  size_t small_cached_bytes() const;
  // Returns every cached block to the base allocator.
  void release_cached();

  // The block size a request of `bytes` (>= min_bytes) gets: rounded up to a quarter of its
  // power of two, so sizes that differ slightly share blocks and at most a fifth of a block
  // goes unused (and the unused tail, never touched, costs no physical memory).
  static size_t size_class(size_t bytes);

 private:
  std::shared_ptr<allocator> base_;
  size_t min_bytes_, max_cached_bytes_;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // by size class
  size_t cached_ = 0;
  mutable std::mutex small_mu_;
  std::array<std::vector<void*>, small_max_bytes / small_class_bytes> small_free_;  // class k: (k+1)*64 B
  size_t small_cached_ = 0;
};

}  // namespace caflow
