#include "net/ring/shm_ring.hpp"

#include <bit>
#include <cstring>

namespace caflow {
namespace {

constexpr uint64_t ring_magic = 0x676e6972'6d687363;  // "cshmring"
constexpr uint64_t wrap_mark = ~uint64_t{0};
// Offsets of the header's words: one cache line each, so the two sides do not share one.
constexpr size_t magic_at = 0, capacity_at = 8, head_at = 64, tail_at = 128, awake_at = 192;

constexpr size_t padded(size_t n) { return (n + 7) & ~size_t{7}; }

// The records' bytes a region of `bytes` holds: the largest power of two after the header.
size_t records_in(size_t bytes) {
  return bytes > shm_ring::header_bytes ? std::bit_floor(bytes - shm_ring::header_bytes) : 0;
}

status check_region(const void* region, size_t bytes) {
  if (reinterpret_cast<uintptr_t>(region) % 64 != 0)
    return errors::invalid_argument("a shm ring's region must start on a cache line");
  if (records_in(bytes) < 4096)
    return errors::invalid_argument("a shm ring needs at least ", shm_ring::header_bytes + 4096,
                                    " bytes, got ", bytes);
  return {};
}

}  // namespace

std::atomic_ref<uint64_t> shm_ring::word_at(size_t offset) const {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(base_ + offset));
}

status_or<shm_ring> shm_ring::create(void* region, size_t bytes) {
  CAFLOW_RETURN_IF_ERROR(check_region(region, bytes));
  shm_ring ring(static_cast<std::byte*>(region), records_in(bytes));
  ring.word_at(capacity_at).store(ring.capacity_, std::memory_order_relaxed);
  ring.word_at(head_at).store(0, std::memory_order_relaxed);
  ring.word_at(tail_at).store(0, std::memory_order_relaxed);
  ring.word_at(awake_at).store(1, std::memory_order_relaxed);
  ring.word_at(magic_at).store(ring_magic, std::memory_order_release);
  return ring;
}

status_or<shm_ring> shm_ring::attach(void* region, size_t bytes) {
  CAFLOW_RETURN_IF_ERROR(check_region(region, bytes));
  shm_ring ring(static_cast<std::byte*>(region), records_in(bytes));
  if (ring.word_at(magic_at).load(std::memory_order_acquire) != ring_magic)
    return errors::invalid_argument("no shm ring in this region (its magic word is wrong)");
  const uint64_t capacity = ring.word_at(capacity_at).load(std::memory_order_relaxed);
  if (capacity != ring.capacity_)
    return errors::invalid_argument("the shm ring says it holds ", capacity,
                                    " bytes of records, but a region of ", bytes, " holds ",
                                    ring.capacity_);
  return ring;
}

bool shm_ring::try_push(std::span<const std::byte> record) {
  if (record.size() > max_record()) return false;
  uint64_t head = word_at(head_at).load(std::memory_order_relaxed);  // ours alone
  const uint64_t tail = word_at(tail_at).load(std::memory_order_acquire);
  const size_t need = prefix_bytes + padded(record.size());
  const size_t at = head % capacity_, to_end = capacity_ - at;
  const size_t wrap = need > to_end ? to_end : 0;  // a record never crosses the end
  if (head - tail + wrap + need > capacity_) return false;
  if (wrap) {
    std::memcpy(data() + at, &wrap_mark, sizeof wrap_mark);
    head += wrap;
  }
  const uint64_t length = record.size();
  std::memcpy(data() + head % capacity_, &length, sizeof length);
  if (!record.empty())
    std::memcpy(data() + head % capacity_ + prefix_bytes, record.data(), record.size());
  word_at(head_at).store(head + need, std::memory_order_seq_cst);  // publishes the bytes above
  return true;
}

bool shm_ring::consumer_sleeps() const {
  return word_at(awake_at).load(std::memory_order_seq_cst) == 0;
}

status_or<bool> shm_ring::try_pop(std::vector<std::byte>& out) {
  uint64_t tail = word_at(tail_at).load(std::memory_order_relaxed);  // ours alone
  const uint64_t head = word_at(head_at).load(std::memory_order_seq_cst);
  if (head == tail) return false;
  if (head < tail || head - tail > capacity_)
    return errors::data_loss("shm ring: the producer's position ", head,
                             " is not within a ring's length after the consumer's ", tail);
  uint64_t length = 0;
  std::memcpy(&length, data() + tail % capacity_, sizeof length);
  if (length == wrap_mark) {
    const size_t skip = capacity_ - tail % capacity_;
    if (head - tail <= skip)
      return errors::data_loss("shm ring: a wrap mark at position ", tail,
                               " with no record after it");
    tail += skip;
    std::memcpy(&length, data(), sizeof length);
  }
  if (length > max_record())
    return errors::data_loss("shm ring: a record of ", length, " bytes at position ", tail,
                             ", more than the ", max_record(), " a record may have");
  const size_t need = prefix_bytes + padded(length);
  if (need > head - tail || tail % capacity_ + need > capacity_)
    return errors::data_loss("shm ring: the record at position ", tail, " (", length,
                             " bytes) reaches past what the producer wrote");
  const std::byte* bytes = data() + tail % capacity_ + prefix_bytes;
  out.assign(bytes, bytes + length);
  word_at(tail_at).store(tail + need, std::memory_order_release);  // its room may be reused
  return true;
}

bool shm_ring::has_records() const {
  return word_at(head_at).load(std::memory_order_seq_cst) !=
         word_at(tail_at).load(std::memory_order_relaxed);
}

void shm_ring::set_awake(bool awake) {
  word_at(awake_at).store(awake ? 1 : 0, std::memory_order_seq_cst);
}

}  // namespace caflow
