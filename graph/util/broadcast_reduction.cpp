#include "graph/util/broadcast_reduction.hpp"

#include <algorithm>
#include <utility>

#include "graph/core/shape.hpp"

namespace caflow {

status_or<broadcast_reduction> broadcast_gradient_reduction(std::span<const int64_t> s0,
                                                            std::span<const int64_t> s1) {
  for (auto [shape, name] : {std::pair{s0, "s0"}, std::pair{s1, "s1"}})
    for (int64_t d : shape)
      if (d < 0)
        return errors::invalid_argument("shape ", name, " = ", format_dims(shape),
                                        " has a negative dimension");
  const size_t rank = std::max(s0.size(), s1.size());
  broadcast_reduction r;
  for (size_t j = 0; j < rank; ++j) {
    // Aligned from the right; a missing leading dim counts as 1.
    const int64_t a = j + s0.size() < rank ? 1 : s0[j + s0.size() - rank];
    const int64_t b = j + s1.size() < rank ? 1 : s1[j + s1.size() - rank];
    if (a != b && a != 1 && b != 1)
      return errors::invalid_argument("incompatible shapes for broadcasting: ", format_dims(s0),
                                      " vs. ", format_dims(s1));
    const bool both_one = a == 1 && b == 1;
    if (a == 1 && (b != 1 || both_one)) r.r0.push_back(static_cast<int64_t>(j));
    if (b == 1 && (a != 1 || both_one)) r.r1.push_back(static_cast<int64_t>(j));
  }
  return r;
}

}  // namespace caflow
