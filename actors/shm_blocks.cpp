#include "actors/shm_blocks.hpp"

#include <algorithm>
#include <cstring>

#include "net/shm_lease.hpp"

namespace caflow {

class shm_blocks::segment_allocator final : public allocator {
 public:
  segment_allocator(std::shared_ptr<shm_blocks> blocks, uint64_t min_bytes)
      : blocks_(std::move(blocks)), min_bytes_(min_bytes) {}

  const char* name() const override { return "shm-out"; }

  void* allocate(size_t bytes) override {
    if (bytes >= min_bytes_) {
      std::lock_guard<std::mutex> lock(blocks_->mu_);
      if (auto block = blocks_->carve(bytes, true))
        return blocks_->base() + block->offset + shm_lease_bytes;
    }
    return default_allocator()->allocate(bytes);
  }

  void deallocate(void* p, size_t bytes) override {
    if (!blocks_->inside(p)) {
      default_allocator()->deallocate(p, bytes);
      return;
    }
    blocks_->release_sender(static_cast<uint64_t>(static_cast<char*>(p) - blocks_->base()));
  }

 private:
  const std::shared_ptr<shm_blocks> blocks_;
  const uint64_t min_bytes_;
};

shm_blocks::shm_blocks(shm_segment segment)
    : segment_(std::move(segment)), arena_(segment_.size()) {}

bool shm_blocks::inside(const void* p) const {
  const auto* c = static_cast<const char*>(p);
  return c >= base() && c < base() + segment_.size();
}

void shm_blocks::reclaim() {
  std::erase_if(out_, [&](const entry& e) {
    if (e.sender_holds) return false;
    if (e.handed_over && !shm_lease::given_back(base() + e.block.offset)) return false;
    (void)arena_.release(e.block);  // ours alone: it cannot refuse a block it handed out
    return true;
  });
}

std::optional<shm_block> shm_blocks::carve(uint64_t bytes, bool sender_holds) {
  reclaim();
  auto block = arena_.allocate(shm_lease_bytes + bytes);
  if (!block.ok()) return std::nullopt;
  shm_lease::take(base() + block->offset);
  out_.push_back({*block, sender_holds, !sender_holds});
  return *block;
}

std::optional<uint64_t> shm_blocks::copy_in(const tensor& value) {
  std::optional<shm_block> block;
  {
    std::lock_guard<std::mutex> lock(mu_);
    block = carve(value.byte_size(), false);
  }
  if (!block) return std::nullopt;
  const uint64_t offset = block->offset + shm_lease_bytes;
  std::memcpy(base() + offset, value.raw_data(), value.byte_size());
  return offset;
}

std::optional<uint64_t> shm_blocks::hand_over(const tensor& value) {
  if (!inside(value.raw_data())) return std::nullopt;
  const auto offset = static_cast<uint64_t>(static_cast<const char*>(value.raw_data()) - base());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = block_at(offset);
  // A view into the middle of a block, or bytes handed over already: the copying way.
  if (it == out_.end() || !it->sender_holds || it->handed_over ||
      value.byte_size() > it->block.size - shm_lease_bytes)
    return std::nullopt;
  it->handed_over = true;  // the lease, set when carved, is the receiver's to clear now
  return offset;
}

void shm_blocks::release_sender(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = block_at(offset);
  if (it == out_.end()) return;
  it->sender_holds = false;
  if (!it->handed_over) {
    (void)arena_.release(it->block);
    out_.erase(it);
  }
}

std::shared_ptr<allocator> shm_blocks::output_allocator(uint64_t min_bytes) {
  return std::make_shared<segment_allocator>(shared_from_this(), min_bytes);
}

std::vector<shm_blocks::entry>::iterator shm_blocks::block_at(uint64_t offset) {
  return std::find_if(out_.begin(), out_.end(), [&](const entry& e) {
    return e.block.offset + shm_lease_bytes == offset;
  });
}

}  // namespace caflow
