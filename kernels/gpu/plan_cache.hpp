#pragma once
// A kernel's memo of what it set up for each shape it has run: for a convolution, cuDNN's
// descriptors and the algorithm measured for them (conv_algorithm.hpp); for a MatMul, cuBLASLt's
// layouts and chosen algorithm. A kernel instance is one node of a graph and usually sees one or
// two shapes, so a short list suffices; setting up costs far more than the launch, so it runs
// once per shape, not once per step. Owned by the kernel: no state outlives it or is shared
// between kernels.
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::gpu {

// Key: a regular value type with ==; it must hold everything the plan depends on.
template <class Key, class Plan>
class plan_cache {
 public:
  static constexpr size_t max_entries = 16;

  // The plan made for `k` earlier, else make() (returning status_or<Plan>), kept when it
  // succeeds. Thread-safe; make() runs without the cache's lock, so two callers that miss at
  // once may both make a plan (the second replaces the first). A returned plan stays valid
  // while the caller holds it, even if the cache drops it meanwhile.
  template <class Make>
  status_or<std::shared_ptr<const Plan>> get(const Key& k, Make&& make) {
    if (auto hit = find(k)) return hit;
    auto made = make();
    if (!made.ok()) return made.get_status();
    auto plan = std::make_shared<const Plan>(std::move(made).value());
    std::lock_guard<std::mutex> lock(mu_);
    ++made_;
    for (auto& [entry_key, entry] : entries_) {
      if (entry_key == k) {
        entry = plan;
        return plan;
      }
    }
    // Shapes that change every step would grow the memo without bound; keep the newest.
    if (entries_.size() >= max_entries) entries_.erase(entries_.begin());
    entries_.emplace_back(k, plan);
    return plan;
  }

  // Plans made so far (misses that succeeded).
  int64_t plans_made() const {
    std::lock_guard<std::mutex> lock(mu_);
    return made_;
  }

 private:
  std::shared_ptr<const Plan> find(const Key& k) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [entry_key, entry] : entries_)
      if (entry_key == k) return entry;
    return nullptr;
  }

  mutable std::mutex mu_;
  std::vector<std::pair<Key, std::shared_ptr<const Plan>>> entries_;
  int64_t made_ = 0;
};

}  // namespace caflow::gpu
