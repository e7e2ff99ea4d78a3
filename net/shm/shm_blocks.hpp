#pragma once
// The sending side's record of one export segment (docs/shm_transport.md): the segment a task
// hands to up to shm_lease_slots receiving tasks on its host, which blocks of it are out, and
// when each comes back. A block is out while a tensor of this process holds it (a kernel's
// output or a variable allocated there) or while any receiver may view it (a lease counter in
// its header is above zero, net/shm/shm_lease.hpp); it comes back once neither holds.
//
// Three ways into a block: `copy_in` carves one and copies a tensor's bytes there (a value
// computed elsewhere); a tensor allocated by `output_allocator` is written there by its kernel;
// a variable allocated by `variable_allocator` lives there. `hand_over` gives a receiver the
// very block such a tensor is in, with no copy, as often as it is sent and to every link of
// the segment: each hand-over counts one lease in the link's slot. A variable whose block a
// receiver still views is not written in place (allocator::writable_in_place): its update
// writes a fresh block instead, so no receiver ever sees bytes change under it.
//
// Thread-safe: kernels allocate on the device's threads, tensors die anywhere, sends run on
// the executor's thread.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "graph/core/allocator.hpp"
#include "graph/core/tensor.hpp"
#include "net/shm/shm_arena.hpp"
#include "net/shm/shm_segment.hpp"

namespace caflow {

class shm_blocks : public std::enable_shared_from_this<shm_blocks> {
 public:
  explicit shm_blocks(shm_segment segment);
  shm_blocks(const shm_blocks&) = delete;
  shm_blocks& operator=(const shm_blocks&) = delete;

  const shm_segment& segment() const { return segment_; }

  // The lease slot of a new receiving link; none once every slot was given (slots are never
  // reused: a receiver that died may still hold leases in its own).
  std::optional<uint32_t> claim_slot();
  // Some link of this segment came up: a receiver maps it.
  void mark_linked() { linked_.store(true, std::memory_order_release); }
  bool linked() const { return linked_.load(std::memory_order_acquire); }

  // The offset (after the block's lease header) where `value`'s bytes now are, one lease of
  // `slot` counted; none when the segment has no room.
  std::optional<uint64_t> copy_in(const tensor& value, uint32_t slot);
  // The offset of `value`'s bytes when they are a whole block a tensor of this process holds
  // (output_allocator's or variable_allocator's), one lease of `slot` counted; none otherwise.
  std::optional<uint64_t> hand_over(const tensor& value, uint32_t slot);
  // Allocates `bytes` in a block of its own (heap memory below `min_bytes` or when the segment
  // is full). Holds this record, and so the mapping, while any tensor it made lives.
  std::shared_ptr<allocator> output_allocator(uint64_t min_bytes);
  // The same for variables, which stay: they take at most half the segment (the rest, beyond,
  // is heap memory), so the values of the steps in flight always find room.
  std::shared_ptr<allocator> variable_allocator(uint64_t min_bytes);

  // Blocks out now (tests and stats).
  size_t blocks_out() const;

 private:
  class segment_allocator;
  struct entry {
    shm_block block;
    bool sender_holds = false;  // a tensor of this process owns the bytes
    bool variable = false;      // counted in variable_bytes_
  };

  char* base() const { return static_cast<char*>(segment_.data()); }
  bool inside(const void* p) const;
  // No receiver views the block whose bytes start at `p` (inside the segment).
  bool unleased(const void* p) const;
  // Takes back what neither side holds any more. REQUIRES: mu_ held.
  void reclaim();
  // A block for `bytes`, its leases cleared, recorded; none when there is no room (or, for a
  // variable, when variables hold half the segment). REQUIRES: mu_ held.
  std::optional<shm_block> carve(uint64_t bytes, bool sender_holds, bool variable);
  // Gives `e`'s block back to the arena. REQUIRES: mu_ held.
  void release(const entry& e);
  // The sender's tensor in the block at data offset `offset` died.
  void release_sender(uint64_t offset);

  shm_segment segment_;
  std::atomic<bool> linked_{false};
  mutable std::mutex mu_;
  shm_arena arena_;
  std::map<uint64_t, entry> out_;  // by data offset: the steps' values and the variables
  uint64_t variable_bytes_ = 0;
  uint32_t next_slot_ = 0;
};

}  // namespace caflow
