#include "net/shm/shm_blocks.hpp"

#include <cstring>

#include "net/shm/shm_lease.hpp"

namespace caflow {
namespace {
constexpr uint64_t shm_page_bytes = 4096;
}  // namespace

class shm_blocks::segment_allocator final : public allocator {
 public:
  segment_allocator(std::shared_ptr<shm_blocks> blocks, uint64_t min_bytes, bool variables)
      : blocks_(std::move(blocks)), min_bytes_(min_bytes), variables_(variables) {}

  const char* name() const override { return variables_ ? "shm-variables" : "shm-out"; }

  void* allocate(size_t bytes) override {
    if (bytes >= min_bytes_) {
      std::lock_guard<std::mutex> lock(blocks_->mu_);
      if (auto block = blocks_->carve(bytes, true, variables_))
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

  bool writable_in_place(const void* p) const override {
    return !blocks_->inside(p) || blocks_->unleased(p);
  }

 private:
  const std::shared_ptr<shm_blocks> blocks_;
  const uint64_t min_bytes_;
  const bool variables_;
};

shm_blocks::shm_blocks(shm_segment segment)
    : segment_(std::move(segment)), arena_(segment_.size()) {}

std::optional<uint32_t> shm_blocks::claim_slot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (next_slot_ >= shm_lease_slots) return std::nullopt;
  return next_slot_++;
}

bool shm_blocks::inside(const void* p) const {
  const auto* c = static_cast<const char*>(p);
  return c >= base() && c < base() + segment_.size();
}

bool shm_blocks::unleased(const void* p) const {
  // Bytes this allocator gave out start right after their block's header.
  return shm_lease::all_given_back(const_cast<char*>(static_cast<const char*>(p)) -
                                   shm_lease_bytes);
}

void shm_blocks::release(const entry& e) {
  if (e.variable) variable_bytes_ -= e.block.size;
  (void)arena_.release(e.block);  // ours alone: it cannot refuse a block it handed out
}

void shm_blocks::reclaim() {
  std::erase_if(out_, [&](const auto& kv) {
    const entry& e = kv.second;
    if (e.sender_holds || !shm_lease::all_given_back(base() + e.block.offset)) return false;
    release(e);
    return true;
  });
}

std::optional<shm_block> shm_blocks::carve(uint64_t bytes, bool sender_holds, bool variable) {
  reclaim();
  if (variable && variable_bytes_ + shm_lease_bytes + bytes > segment_.size() / 2)
    return std::nullopt;
  // A tensor of a page or more starts 64 bytes into a page (its header fills the page's first
  // line), as the heap's big allocations do (glibc maps them with a header before the bytes).
  // Arrays a kernel streams through together at offsets a line or two apart within their
  // pages make the loads alias the stores just before them (4K aliasing): back to back in the
  // segment, ApplyAdam on the MLP's first layer took twice as long, and a gradient block at
  // the page's start slowed the ps's sum of it into an accumulator on the heap.
  auto block = bytes >= shm_page_bytes
                   ? arena_.allocate(shm_lease_bytes + bytes, shm_page_bytes, 0)
                   : arena_.allocate(shm_lease_bytes + bytes);
  if (!block.ok()) return std::nullopt;
  shm_lease::clear(base() + block->offset);
  if (variable) variable_bytes_ += block->size;
  out_.emplace(block->offset + shm_lease_bytes, entry{*block, sender_holds, variable});
  return *block;
}

std::optional<uint64_t> shm_blocks::copy_in(const tensor& value, uint32_t slot) {
  std::optional<shm_block> block;
  {
    std::lock_guard<std::mutex> lock(mu_);
    block = carve(value.byte_size(), false, false);
    // Leased before the lock goes: the next reclaim must not take it back.
    if (block) shm_lease::take(base() + block->offset, slot);
  }
  if (!block) return std::nullopt;
  const uint64_t offset = block->offset + shm_lease_bytes;
  std::memcpy(base() + offset, value.raw_data(), value.byte_size());
  return offset;
}

std::optional<uint64_t> shm_blocks::hand_over(const tensor& value, uint32_t slot) {
  if (!inside(value.raw_data())) return std::nullopt;
  const auto offset = static_cast<uint64_t>(static_cast<const char*>(value.raw_data()) - base());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = out_.find(offset);
  // A view into the middle of a block, or one no tensor here holds: the copying way.
  if (it == out_.end() || !it->second.sender_holds ||
      value.byte_size() > it->second.block.size - shm_lease_bytes)
    return std::nullopt;
  shm_lease::take(base() + it->second.block.offset, slot);
  return offset;
}

void shm_blocks::release_sender(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = out_.find(offset);
  if (it == out_.end()) return;
  it->second.sender_holds = false;
  if (shm_lease::all_given_back(base() + it->second.block.offset)) {
    release(it->second);
    out_.erase(it);
  }
}

std::shared_ptr<allocator> shm_blocks::output_allocator(uint64_t min_bytes) {
  return std::make_shared<segment_allocator>(shared_from_this(), min_bytes, false);
}

std::shared_ptr<allocator> shm_blocks::variable_allocator(uint64_t min_bytes) {
  return std::make_shared<segment_allocator>(shared_from_this(), min_bytes, true);
}

size_t shm_blocks::blocks_out() const {
  std::lock_guard<std::mutex> lock(mu_);
  return out_.size();
}

}  // namespace caflow
