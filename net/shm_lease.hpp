#pragma once
// How the receiver of a shared memory block tells its sender that the block is free again,
// without a message (docs/shm_transport.md): every block the sender carves out of its segment
// starts with a header of shm_lease_bytes, whose first 8 bytes are the lease. The sender sets
// it before it hands the block over; the receiver clears it when the last tensor viewing the
// block dies; the sender takes back blocks whose lease it finds cleared the next time it needs
// room. A release costs one store and wakes nobody.
//
// Both processes map the header, so the lease is written with atomic operations on the shared
// mapping (std::atomic_ref of a lock-free 8-byte integer, which is address-free as the
// standard requires for use across processes). The sender keeps its own record of the blocks
// it handed out: a peer that clears a lease early only hurts itself (it may see the block
// reused), never makes the sender touch memory outside its segment.
#include <atomic>
#include <cstdint>

#include "graph/core/allocator.hpp"

namespace caflow {

// The header before a block's bytes; the bytes stay aligned to tensor_alignment.
inline constexpr uint64_t shm_lease_bytes = tensor_alignment;

namespace shm_lease {

inline std::atomic_ref<uint64_t> at(void* header) {
  return std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(header));
}
// The sender, before it writes the block's bytes.
inline void take(void* header) { at(header).store(1, std::memory_order_relaxed); }
// The receiver, once it no longer reads the block: what it read happens before the sender
// reuses the block.
inline void give_back(void* header) { at(header).store(0, std::memory_order_release); }
inline bool given_back(void* header) { return at(header).load(std::memory_order_acquire) == 0; }

}  // namespace shm_lease
}  // namespace caflow
