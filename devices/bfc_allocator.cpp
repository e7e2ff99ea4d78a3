#include "devices/bfc_allocator.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "graph/core/status.hpp"

namespace caflow {

void* host_sub_allocator::alloc(size_t bytes) {
  return std::aligned_alloc(bfc_allocator::min_allocation, bytes);
}

void host_sub_allocator::free(void* p, size_t) { std::free(p); }

namespace {
size_t round_up(size_t bytes) {
  const size_t unit = bfc_allocator::min_allocation;
  return bytes == 0 ? unit : (bytes + unit - 1) / unit * unit;
}
}  // namespace

bfc_allocator::bfc_allocator(std::string name, std::unique_ptr<sub_allocator> sub,
                             const bfc_options& opts)
    : device_name_(std::move(name)), sub_(std::move(sub)), opts_(opts) {
  full_name_ = device_name_ + " bfc, limit " + std::to_string(opts_.memory_limit_bytes) + " bytes";
  next_region_ = std::max<int64_t>(static_cast<int64_t>(min_allocation),
                                   static_cast<int64_t>(round_up(static_cast<size_t>(
                                       std::max<int64_t>(opts_.initial_region_bytes, 1)))));
  bins_.resize(num_bins);
}

bfc_allocator::~bfc_allocator() {
  for (const auto& [p, bytes] : regions_) sub_->free(p, bytes);
}

int bfc_allocator::bin_for(size_t bytes) {
  // Bin i holds chunks of [256 << i, 256 << (i + 1)); the last bin everything bigger.
  const size_t units = std::max<size_t>(bytes / min_allocation, 1);
  const int b = static_cast<int>(std::bit_width(units)) - 1;
  return std::min(b, num_bins - 1);
}

bfc_allocator::chunk_id bfc_allocator::new_chunk() {
  if (!unused_ids_.empty()) {
    const chunk_id c = unused_ids_.back();
    unused_ids_.pop_back();
    chunks_[c] = chunk{};
    return c;
  }
  chunks_.emplace_back();
  return static_cast<chunk_id>(chunks_.size() - 1);
}

void bfc_allocator::insert_free(chunk_id c) {
  chunk& ch = chunks_[c];
  ch.in_use = false;
  ch.requested = 0;
  ch.bin = bin_for(ch.size);
  bins_[ch.bin].emplace(ch.size, ch.ptr, c);
}

void bfc_allocator::remove_free(chunk_id c) {
  chunk& ch = chunks_[c];
  bins_[ch.bin].erase(bin_entry{ch.size, ch.ptr, c});
  ch.bin = -1;
}

void bfc_allocator::split(chunk_id c, size_t keep) {
  // The tail becomes a free chunk after c.
  const chunk_id t = new_chunk();  // may reallocate chunks_: index afresh below
  chunk& head = chunks_[c];
  chunk& tail = chunks_[t];
  tail.ptr = head.ptr + keep;
  tail.size = head.size - keep;
  tail.prev = c;
  tail.next = head.next;
  if (head.next != no_chunk) chunks_[head.next].prev = t;
  head.next = t;
  head.size = keep;
  by_ptr_[tail.ptr] = t;
  insert_free(t);
}

void bfc_allocator::merge_into_prev(chunk_id c) {
  chunk& ch = chunks_[c];
  chunk& p = chunks_[ch.prev];
  p.size += ch.size;
  p.next = ch.next;
  if (ch.next != no_chunk) chunks_[ch.next].prev = ch.prev;
  by_ptr_.erase(ch.ptr);
  ch = chunk{};
  unused_ids_.push_back(c);
}

bfc_allocator::chunk_id bfc_allocator::find_fit(size_t rounded) {
  for (int b = bin_for(rounded); b < num_bins; ++b) {
    // Bins are ordered by size: the first chunk at least as big is the best fit in this bin,
    // and any chunk in a larger bin is bigger still.
    auto it = bins_[b].lower_bound(bin_entry{rounded, nullptr, 0});
    if (it != bins_[b].end()) return std::get<2>(*it);
  }
  return no_chunk;
}

bool bfc_allocator::extend(size_t rounded) {
  const int64_t room = opts_.memory_limit_bytes - reserved_;
  if (static_cast<int64_t>(rounded) > room) return false;
  // Without growth the first region is the whole limit; with it, regions double.
  int64_t want = opts_.allow_growth ? std::max<int64_t>(next_region_, static_cast<int64_t>(rounded))
                                    : room;
  want = std::min(want, room);
  want = want / static_cast<int64_t>(min_allocation) * static_cast<int64_t>(min_allocation);
  void* p = nullptr;
  // The device may hold less than the limit promises (another process, fragmentation):
  // settle for less, down to the request.
  while (!p) {
    p = sub_->alloc(static_cast<size_t>(want));
    if (p) break;
    if (want == static_cast<int64_t>(rounded)) return false;
    want = std::max<int64_t>(static_cast<int64_t>(rounded),
                             want / 2 / static_cast<int64_t>(min_allocation) *
                                 static_cast<int64_t>(min_allocation));
  }
  regions_.emplace_back(p, static_cast<size_t>(want));
  reserved_ += want;
  if (opts_.allow_growth) next_region_ = std::max(next_region_, want) * 2;
  const chunk_id c = new_chunk();
  chunks_[c].ptr = static_cast<char*>(p);
  chunks_[c].size = static_cast<size_t>(want);
  by_ptr_[p] = c;
  insert_free(c);
  return true;
}

void* bfc_allocator::allocate(size_t bytes) {
  const size_t rounded = round_up(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  chunk_id c = find_fit(rounded);
  if (c == no_chunk) {
    if (!extend(rounded)) return nullptr;
    c = find_fit(rounded);
    if (c == no_chunk) return nullptr;
  }
  remove_free(c);
  if (chunks_[c].size - rounded >= min_allocation) split(c, rounded);
  chunk& ch = chunks_[c];
  ch.in_use = true;
  ch.requested = bytes;
  in_use_ += static_cast<int64_t>(ch.size);
  peak_ = std::max(peak_, in_use_);
  ++num_allocs_;
  return ch.ptr;
}

void bfc_allocator::deallocate(void* p, size_t) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_ptr_.find(p);
  if (it == by_ptr_.end() || !chunks_[it->second].in_use) std::abort();  // not ours: a bug
  chunk_id c = it->second;
  in_use_ -= static_cast<int64_t>(chunks_[c].size);
  chunks_[c].in_use = false;
  const chunk_id next = chunks_[c].next;
  if (next != no_chunk && !chunks_[next].in_use) {
    remove_free(next);
    merge_into_prev(next);
  }
  const chunk_id prev = chunks_[c].prev;
  if (prev != no_chunk && !chunks_[prev].in_use) {
    remove_free(prev);
    merge_into_prev(c);
    c = prev;
  }
  insert_free(c);
}

allocator_stats bfc_allocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {in_use_, peak_, num_allocs_, opts_.memory_limit_bytes};
}

bfc_stats bfc_allocator::detailed_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  bfc_stats s;
  s.base = {in_use_, peak_, num_allocs_, opts_.memory_limit_bytes};
  s.bytes_reserved = reserved_;
  s.num_regions = static_cast<int64_t>(regions_.size());
  for (int b = num_bins - 1; b >= 0 && s.largest_free_chunk == 0; --b)
    if (!bins_[b].empty()) s.largest_free_chunk = static_cast<int64_t>(std::get<0>(*bins_[b].rbegin()));
  return s;
}

std::string bfc_allocator::oom_message(size_t bytes) const {
  const bfc_stats s = detailed_stats();
  return errors::concat("out of memory on ", device_name_, ": asked for ", bytes, " bytes; limit ",
                 s.base.bytes_limit, " bytes, ", s.base.bytes_in_use,
                 " in use, largest free chunk ", s.largest_free_chunk, " bytes");
}

}  // namespace caflow
