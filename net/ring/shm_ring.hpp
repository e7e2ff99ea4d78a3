#pragma once
// A single-producer, single-consumer ring of variable-length records in memory that two
// processes map (a region of a shm segment, net/shm/shm_segment.hpp): the building block for
// step messages between tasks on one host without BASP (docs/shm_transport.md, "Not done").
// A polled round trip through shared memory costs about half a microsecond on the test
// machine, against 20-25 us for a BASP round trip between two actors.
//
// Layout, all offsets from the region's start: a header of four cache lines (magic and
// capacity; the producer's position; the consumer's position; the consumer's awake word),
// then `capacity` bytes of records (a power of two). A record is an 8-byte prefix (its length)
// and its bytes, padded to 8; one that would cross the end leaves a wrap mark and starts
// over at offset 0. Positions grow without bound; a record's place is position mod capacity.
//
// The peer writes this memory too, so the consumer trusts nothing in it: a length or position
// no producer would leave is an error naming what is wrong, never a read outside the region.
//
// Waking a consumer that stopped polling (the doorbell): the consumer stores awake = false,
// then looks for records once more before it sleeps; the producer, after a push, reads the
// awake word and rings (through another channel) when it is false. Both sides use sequentially
// consistent operations, so a record is never left unseen by both.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

class shm_ring {
 public:
  static constexpr size_t header_bytes = 4 * 64;
  static constexpr size_t prefix_bytes = 8;

  // Lays a new, empty ring out over `region` (the producer's side). `bytes` covers the header
  // and the records; the records get the largest power of two that fits.
  static status_or<shm_ring> create(void* region, size_t bytes);
  // Uses a ring the peer laid out (the consumer's side): the header must say what create
  // would have written for `bytes`.
  static status_or<shm_ring> attach(void* region, size_t bytes);

  // Bytes a record may have at most.
  size_t max_record() const { return capacity_ / 2 - prefix_bytes; }

  // Producer: appends `record`; false when it does not fit now (the caller then sends it
  // another way). A record longer than max_record() never fits.
  bool try_push(std::span<const std::byte> record);
  // Producer, after a push: whether the consumer said it stopped polling (ring its doorbell).
  bool consumer_sleeps() const;

  // Consumer: moves the next record into `out` (its old contents gone) and says true; false
  // when there is none. Errors: positions or a length that no producer leaves.
  status_or<bool> try_pop(std::vector<std::byte>& out);
  // Consumer: whether a record waits (try_pop would not say false).
  bool has_records() const;
  // Consumer: about to stop polling (false; then call try_pop once more before sleeping), or
  // polling again (true).
  void set_awake(bool awake);

  size_t capacity() const { return capacity_; }

 private:
  shm_ring(std::byte* region, size_t capacity) : base_(region), capacity_(capacity) {}

  std::atomic_ref<uint64_t> word_at(size_t offset) const;
  std::byte* data() const { return base_ + header_bytes; }

  std::byte* base_;
  size_t capacity_;
};

}  // namespace caflow
