#pragma once
// Shared by the pooling kernels (pool_max_kernels.cpp, pool_avg_kernels.cpp): the attrs they
// read, window bounds clipped to the input, and splitting loops over the intra-op pool.
#include <algorithm>
#include <string>

#include "kernels/common/pool_checks.hpp"
#include "kernels/cpu/cwise_common.hpp"

namespace caflow::pool {

// Reads and checks the pooling attrs once (kernels/common/pool_checks.hpp).
class pool_kernel_base : public op_kernel {
 public:
  explicit pool_kernel_base(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_pool_kernel_params(c, device_cpu, &params_));
  }

 protected:
  pool_params params_;
};

// The input rows (or columns) under the window at output row `o`, clipped to the input: the
// padding holds nothing to pool.
struct span_1d {
  int64_t begin, end;
};
inline span_1d window_rows(const conv2d_geometry& g, int64_t o) {
  const int64_t start = o * g.stride_rows - g.pad_top;
  return {std::max<int64_t>(start, 0), std::min(start + g.filter_rows, g.in_rows)};
}
inline span_1d window_cols(const conv2d_geometry& g, int64_t o) {
  const int64_t start = o * g.stride_cols - g.pad_left;
  return {std::max<int64_t>(start, 0), std::min(start + g.filter_cols, g.in_cols)};
}

// Calls f(begin, end) over items [0, units), split over the intra-op pool when the whole loop
// (`item_elements` elements read per item, about `cycles` per element) is large enough.
template <class T, class F>
void for_items(const kernel_context& ctx, int64_t units, int64_t item_elements, double cycles,
               F&& f) {
  const double bytes = static_cast<double>(item_elements * int64_t{sizeof(T)});
  cwise::for_range(ctx, units, item_elements, bytes, bytes, cycles * item_elements,
                   std::forward<F>(f));
}

}  // namespace caflow::pool
