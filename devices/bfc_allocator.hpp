#pragma once
// A best-fit allocator with coalescing, after TensorFlow's BFC ("best-fit with coalescing").
// It asks a sub-allocator for a few big regions (cudaMalloc on a GPU, which is slow and
// synchronizing) and carves tensors out of them:
//
//   region  [ chunk | chunk | chunk ........ ]    chunks tile a region, neighbours linked
//   bins    256 B, 512 B, 1 KiB, ... 2^k * 256 B  free chunks by size class, best fit first
//
// allocate() rounds up to 256 bytes, takes the smallest free chunk that fits (searching the
// size class of the request, then larger ones) and splits off the rest; deallocate() merges
// the chunk with free neighbours so fragments heal. When nothing fits, a new region is taken,
// never past `memory_limit_bytes` in all: with allow_growth the regions start small and double,
// without it the first allocation takes the whole limit at once (TF's two behaviours).
//
// Thread-safe (one mutex). Memory returns to the sub-allocator only when the allocator dies.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "devices/counting_allocator.hpp"

namespace caflow {

// The source of regions. Implementations return memory aligned to at least 256 bytes.
class sub_allocator {
 public:
  virtual ~sub_allocator() = default;
  // nullptr when the memory is not there.
  virtual void* alloc(size_t bytes) = 0;
  // REQUIRES: p came from alloc(bytes).
  virtual void free(void* p, size_t bytes) = 0;
};

// Regions from the heap: for tests, and for a BFC over host memory.
class host_sub_allocator final : public sub_allocator {
 public:
  void* alloc(size_t bytes) override;
  void free(void* p, size_t bytes) override;
};

struct bfc_options {
  int64_t memory_limit_bytes = 0;  // REQUIRED > 0: the most all regions together may hold
  bool allow_growth = false;
  // With allow_growth, the size of the first region; each later one is twice the last
  // (and at least the request), until the limit.
  int64_t initial_region_bytes = int64_t{2} << 20;
  // The device memory the regions are in; nullptr for host memory (pinned staging buffers).
  memory_space* space = nullptr;
};

// What the allocator holds, beyond allocator_stats.
struct bfc_stats {
  allocator_stats base;
  int64_t bytes_reserved = 0;  // all regions taken from the sub-allocator
  int64_t num_regions = 0;
  int64_t largest_free_chunk = 0;
};

class bfc_allocator final : public allocator {
 public:
  static constexpr size_t min_allocation = 256;

  // `name` names the device in messages ("GPU:0"); name() adds the limit, so the core's
  // out-of-memory error ("allocator '...' could not provide N bytes") states it too.
  bfc_allocator(std::string name, std::unique_ptr<sub_allocator> sub, const bfc_options& opts);
  ~bfc_allocator() override;

  const char* name() const override { return full_name_.c_str(); }
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;
  memory_space* space() const override { return opts_.space; }

  allocator_stats stats() const;
  bfc_stats detailed_stats() const;
  int64_t memory_limit() const { return opts_.memory_limit_bytes; }
  // "out of memory on GPU:0: asked for 1048576 bytes; limit 4194304 bytes, 3670016 in use,
  // largest free chunk 524288 bytes": for kernels reporting a failed allocation.
  std::string oom_message(size_t bytes) const;

 private:
  using chunk_id = int64_t;
  static constexpr chunk_id no_chunk = -1;
  static constexpr int num_bins = 21;

  struct chunk {
    char* ptr = nullptr;
    size_t size = 0;        // bytes this chunk spans (a multiple of min_allocation)
    size_t requested = 0;   // what the caller asked for, when in use
    bool in_use = false;
    int bin = -1;           // the bin holding it while free, else -1
    chunk_id prev = no_chunk, next = no_chunk;  // neighbours within the region
  };
  // A free chunk in a bin: ordered by size, then address (lower first keeps the heap compact).
  using bin_entry = std::tuple<size_t, const char*, chunk_id>;

  static int bin_for(size_t bytes);
  chunk_id find_fit(size_t rounded);
  bool extend(size_t rounded);
  chunk_id new_chunk();
  void insert_free(chunk_id c);
  void remove_free(chunk_id c);
  void split(chunk_id c, size_t keep);
  void merge_into_prev(chunk_id c);  // c's bytes join c.prev; c is released

  std::string device_name_, full_name_;
  std::unique_ptr<sub_allocator> sub_;
  bfc_options opts_;

  mutable std::mutex mu_;
  std::vector<chunk> chunks_;
  std::vector<chunk_id> unused_ids_;
  std::vector<std::set<bin_entry>> bins_;
  std::unordered_map<const void*, chunk_id> by_ptr_;  // every chunk, free or not, by start
  std::vector<std::pair<void*, size_t>> regions_;
  int64_t reserved_ = 0, next_region_ = 0;
  int64_t in_use_ = 0, peak_ = 0, num_allocs_ = 0;
};

}  // namespace caflow
