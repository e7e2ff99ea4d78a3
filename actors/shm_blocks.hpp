#pragma once
// The sending side's record of its shared memory segment (docs/shm_transport.md): which blocks
// are out, and when each comes back. A block is out while the sender's own tensor holds it (a
// kernel's output allocated there, output_allocator below) or while the receiver may view it
// (its lease word is set, net/shm_lease.hpp); it comes back once neither holds.
//
// Two ways into a block: `copy_in` carves one and copies a tensor's bytes there (a value
// computed elsewhere: a variable's, a kernel's output on the heap); a tensor allocated by
// `output_allocator` is written there by its kernel, and `hand_over` gives the receiver that
// very block, with no copy. Each block is handed over once: a second send of the same bytes
// takes the copying way, so a release by one view never frees bytes another still reads.
//
// Thread-safe: kernels allocate on the device's threads, tensors die anywhere, sends run on
// the executor's thread.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/tensor.hpp"
#include "net/shm_arena.hpp"
#include "net/shm_segment.hpp"

namespace caflow {

class shm_blocks : public std::enable_shared_from_this<shm_blocks> {
 public:
  explicit shm_blocks(shm_segment segment);
  shm_blocks(const shm_blocks&) = delete;
  shm_blocks& operator=(const shm_blocks&) = delete;

  // The offset (after the block's lease header) where `value`'s bytes now are, lease set; none
  // when the segment has no room.
  std::optional<uint64_t> copy_in(const tensor& value);
  // The offset of `value`'s bytes when they are a block that output_allocator made and that
  // was not handed over yet: now handed over, lease set. None otherwise.
  std::optional<uint64_t> hand_over(const tensor& value);
  // Allocates `bytes` in a block of its own (heap memory below `min_bytes` or when the segment
  // is full). Holds this record, and so the mapping, while any tensor it made lives.
  std::shared_ptr<allocator> output_allocator(uint64_t min_bytes);

 private:
  class segment_allocator;
  struct entry {
    shm_block block;
    bool sender_holds = false;  // a tensor of this process owns the bytes
    bool handed_over = false;   // the receiver may view them until it clears the lease
  };

  char* base() const { return static_cast<char*>(segment_.data()); }
  bool inside(const void* p) const;
  // Takes back what neither side holds any more. REQUIRES: mu_ held.
  void reclaim();
  // A block for `bytes` with its lease set, recorded. REQUIRES: mu_ held.
  std::optional<shm_block> carve(uint64_t bytes, bool sender_holds);
  // The sender's tensor in the block at data offset `offset` died.
  void release_sender(uint64_t offset);
  // The record of the block whose bytes start at `offset`, or out_.end(). REQUIRES: mu_ held.
  std::vector<entry>::iterator block_at(uint64_t offset);

  shm_segment segment_;
  std::mutex mu_;
  shm_arena arena_;
  std::vector<entry> out_;  // the few blocks of the steps in flight: a list beats a map
};

}  // namespace caflow
