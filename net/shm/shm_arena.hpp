#pragma once
// The bookkeeping of which bytes of a shared memory segment (net/shm/shm_segment.hpp) hold which
// buffer: the segment's owner carves blocks for tensors out of it and takes them back when the
// receiving process says it is done with them (docs/shm_transport.md). A block is named by a
// descriptor, (offset, size), which is all that has to travel to the peer: it maps the segment
// once and finds the bytes at the offset.
//
// First fit over a free list ordered by offset, with neighbours merged on release: tensors of a
// training step come and go in roughly the same order every step, so the list stays short.
// Every block starts at a multiple of tensor_alignment (what kernels expect of a tensor's
// buffer) and its size is rounded up to one. Only the owner's process holds an arena; the
// peer validates descriptors with check_block (a descriptor from another process is input).
// Thread-safe: _Sends allocate on executor threads, releases arrive on actor threads.
#include <cstdint>
#include <map>
#include <mutex>

#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"

namespace caflow {

struct shm_block {
  uint64_t offset = 0;
  uint64_t size = 0;  // a multiple of tensor_alignment
  friend bool operator==(const shm_block&, const shm_block&) = default;
};

class shm_arena {
 public:
  // Manages bytes [0, capacity) of a segment; capacity is rounded down to tensor_alignment.
  explicit shm_arena(uint64_t capacity);
  shm_arena(const shm_arena&) = delete;
  shm_arena& operator=(const shm_arena&) = delete;

  // A block of at least `bytes` (> 0) bytes whose offset plus `skew` is a multiple of `align`
  // (a power of two, at least tensor_alignment; skew a multiple of tensor_alignment).
  // resource_exhausted when no free block is large enough (the caller falls back to a private
  // buffer sent over TCP), saying how many bytes are free and the largest block;
  // invalid_argument for 0 bytes or an alignment it cannot give.
  status_or<shm_block> allocate(uint64_t bytes, uint64_t align = tensor_alignment,
                                uint64_t skew = 0);
  // Takes back a block that allocate handed out and that was not released since;
  // invalid_argument otherwise (a double release, or a descriptor this arena never made).
  status release(shm_block block);

  uint64_t capacity() const { return capacity_; }
  uint64_t bytes_in_use() const;
  // How many free runs there are (1 when nothing is allocated): for tests of the merging.
  size_t free_runs() const;

 private:
  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::map<uint64_t, uint64_t> free_;  // offset -> size, disjoint, never adjacent
  std::map<uint64_t, uint64_t> used_;  // offset -> size of blocks handed out
  uint64_t in_use_ = 0;
};

// OK when `block` lies within a segment of `segment_bytes` bytes and is aligned; data_loss
// naming the block otherwise (the receiver of a descriptor checks it before touching bytes).
status check_block(const shm_block& block, uint64_t segment_bytes);

}  // namespace caflow
