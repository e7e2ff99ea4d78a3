#include "kernels/common/row_scatter_plan.hpp"

#include <algorithm>
#include <numeric>

namespace caflow {

template <class Index>
row_scatter_plan plan_row_scatter(std::span<const Index> idx) {
  row_scatter_plan p;
  std::vector<int64_t> order(idx.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  // Already grouped (one update per row, or rows in order): no sort.
  if (!std::is_sorted(idx.begin(), idx.end()))
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return idx[a] < idx[b]; });
  // Negative indices sort first: drop them.
  const auto kept = std::find_if(order.begin(), order.end(), [&](int64_t k) { return idx[k] >= 0; });
  order.erase(order.begin(), kept);
  const int64_t n = static_cast<int64_t>(order.size());
  p.updates = n;
  std::vector<int64_t> starts, dest;
  for (int64_t at = 0; at < n; ++at) {
    const int64_t row = static_cast<int64_t>(idx[order[at]]);
    if (dest.empty() || dest.back() != row) {
      starts.push_back(at);
      dest.push_back(row);
    }
  }
  starts.push_back(n);
  p.rows = static_cast<int64_t>(dest.size());
  p.data = std::move(order);
  p.data.insert(p.data.end(), starts.begin(), starts.end());
  p.data.insert(p.data.end(), dest.begin(), dest.end());
  return p;
}

template row_scatter_plan plan_row_scatter<int32_t>(std::span<const int32_t>);
template row_scatter_plan plan_row_scatter<int64_t>(std::span<const int64_t>);

}  // namespace caflow
