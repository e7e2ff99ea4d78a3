#include "net/shm/shm_arena.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

namespace caflow {
namespace {

constexpr uint64_t align = tensor_alignment;

std::string describe(const shm_block& b) {
  return errors::concat("block (offset ", b.offset, ", ", b.size, " bytes)");
}

}  // namespace

shm_arena::shm_arena(uint64_t capacity) : capacity_(capacity / align * align) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

status_or<shm_block> shm_arena::allocate(uint64_t bytes, uint64_t align_to, uint64_t skew) {
  if (bytes == 0) return errors::invalid_argument("shm arena: a block of 0 bytes was asked for");
  if (align_to < align || (align_to & (align_to - 1)) != 0 || skew % align != 0 ||
      align_to > capacity_ + 1)
    return errors::invalid_argument("shm arena: cannot align a block to ", align_to,
                                    " bytes with a skew of ", skew);
  if (bytes > std::numeric_limits<uint64_t>::max() - align)
    return errors::resource_exhausted("shm arena: ", bytes, " bytes exceed any segment");
  const uint64_t size = (bytes + align - 1) / align * align;
  skew %= align_to;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t largest = 0;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const auto [start, length] = *it;
    largest = std::max(largest, length);
    // The first offset in the run that the alignment allows; the run's head stays free.
    const uint64_t first = (start + skew + align_to - 1) / align_to * align_to - skew;
    const uint64_t pad = first - start;
    if (length < size || length - size < pad) continue;
    const shm_block block{first, size};
    const uint64_t rest = length - pad - size;
    free_.erase(it);
    if (pad > 0) free_.emplace(start, pad);
    if (rest > 0) free_.emplace(block.offset + size, rest);
    used_.emplace(block.offset, size);
    in_use_ += size;
    return block;
  }
  return errors::resource_exhausted("shm arena: no free block of ", size, " bytes (",
                                    capacity_ - in_use_, " of ", capacity_,
                                    " bytes free, the largest block ", largest, ")");
}

status shm_arena::release(shm_block block) {
  std::lock_guard<std::mutex> lock(mu_);
  auto used = used_.find(block.offset);
  if (used == used_.end() || used->second != block.size)
    return errors::invalid_argument("shm arena: ", describe(block),
                                    " is not a block handed out and still in use (released "
                                    "twice, or never allocated here)");
  used_.erase(used);
  in_use_ -= block.size;
  // Merge with the free runs on either side, so a freed region is one run again.
  auto next = free_.lower_bound(block.offset);
  uint64_t offset = block.offset, size = block.size;
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    free_.erase(next);
  }
  free_.emplace(offset, size);
  return {};
}

uint64_t shm_arena::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t shm_arena::free_runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

status check_block(const shm_block& block, uint64_t segment_bytes) {
  if (block.size == 0 || block.offset % align != 0 || block.offset > segment_bytes ||
      block.size > segment_bytes - block.offset)
    return errors::data_loss("shm ", describe(block), " does not lie aligned within a segment of ",
                             segment_bytes, " bytes");
  return {};
}

}  // namespace caflow
