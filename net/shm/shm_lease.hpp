#pragma once
// How receivers of a shared memory block tell its sender that they no longer read it, without
// a message (docs/shm_transport.md): every block the sender carves out of its segment starts
// with a header of shm_lease_bytes holding one lease counter per receiving link (its slot).
// The sender adds one to a link's counter each time it hands the block to that link; the
// receiver subtracts one when the last tensor viewing what it was handed dies. The sender
// takes a block back, or writes a variable's bytes in place, only when every counter is zero.
// A release costs one atomic operation and wakes nobody.
//
// Counters, not a flag: a variable's block is handed to every worker that reads it, on every
// step, and steps overlap. Per link, not one for all: a counter is only ever decremented by
// the one receiver it belongs to, so a receiver that dies holding leases leaves its own slot
// set (the sender retires it, docs/shm_transport.md) and never corrupts another's.
//
// Both processes map the header, so it is written with atomic operations on the shared
// mapping (std::atomic_ref of lock-free 4-byte integers, which are address-free as the
// standard requires for use across processes). The sender keeps its own record of the blocks
// it carved: a peer that releases early only hurts itself (it may see the block reused), and
// never makes the sender touch memory outside its segment.
#include <atomic>
#include <cstdint>

#include "graph/core/allocator.hpp"

namespace caflow {

// The header before a block's bytes; the bytes stay aligned to tensor_alignment.
inline constexpr uint64_t shm_lease_bytes = tensor_alignment;
// How many receiving links one segment serves: one counter each in the header.
inline constexpr uint32_t shm_lease_slots = shm_lease_bytes / sizeof(uint32_t);

namespace shm_lease {

inline std::atomic_ref<uint32_t> at(void* header, uint32_t slot) {
  return std::atomic_ref<uint32_t>(static_cast<uint32_t*>(header)[slot]);
}
// The sender, on a block it just carved (nobody else can see it yet).
inline void clear(void* header) {
  for (uint32_t s = 0; s < shm_lease_slots; ++s) at(header, s).store(0, std::memory_order_relaxed);
}
// The sender, before it sends the block's descriptor through `slot`'s link.
inline void take(void* header, uint32_t slot) {
  at(header, slot).fetch_add(1, std::memory_order_relaxed);
}
// The receiver of `slot`, once it no longer reads the block: what it read happens before the
// sender reuses or rewrites the block.
inline void give_back(void* header, uint32_t slot) {
  at(header, slot).fetch_sub(1, std::memory_order_release);
}
// The sender: no receiver views the block.
inline bool all_given_back(void* header) {
  for (uint32_t s = 0; s < shm_lease_slots; ++s)
    if (at(header, s).load(std::memory_order_acquire) != 0) return false;
  return true;
}

}  // namespace shm_lease
}  // namespace caflow
