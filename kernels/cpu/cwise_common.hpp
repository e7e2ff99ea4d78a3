#pragma once
// Shared by the element-wise CPU kernels: running a loop over [0, n) inline when it is small
// and split across the device's intra-op pool when it is large.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/cpu/eigen_eval.hpp"

namespace caflow::cwise {

// Calls `f(begin, end)` over items [0, n), each item being `item_elements` elements (1 for
// element-wise loops, a row's length for row-wise ones). Below parallel_eval_threshold
// elements in all (and on devices without an intra-op pool) that is one call on the calling
// thread: a pool hand-off costs more than a small loop, and the scalar/scalar case is the
// executor's hottest path. `bytes_in`, `bytes_out` and `cycles` describe one item, for Eigen's
// shard sizing.
template <class F>
void for_range(const kernel_context& ctx, int64_t n, int64_t item_elements, double bytes_in,
               double bytes_out, double cycles, F&& f) {
  const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
  if (n * item_elements < parallel_eval_threshold || n < 2 || pool == nullptr) {
    f(int64_t{0}, n);
    return;
  }
  pool->parallelFor(n, Eigen::TensorOpCost(bytes_in, bytes_out, cycles),
                    [&f](Eigen::Index begin, Eigen::Index end) {
                      f(static_cast<int64_t>(begin), static_cast<int64_t>(end));
                    });
}

// The common element-wise case: one item per element.
template <class F>
void for_range(const kernel_context& ctx, int64_t n, double bytes_in, double bytes_out,
               double cycles, F&& f) {
  for_range(ctx, n, 1, bytes_in, bytes_out, cycles, std::forward<F>(f));
}

// The element type an Eigen scalar functor produces (bool for comparisons).
template <class Op, class... Args>
using result_of_t = std::remove_cvref_t<std::invoke_result_t<Op, const Args&...>>;

}  // namespace caflow::cwise
