#pragma once
// Evaluating Eigen expressions in CPU kernels: small outputs run on the calling thread (a
// thread-pool hand-off costs more than the work), large ones on the device's intra-op pool.
#include "graph/core/tensor_views.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

inline constexpr int64_t parallel_eval_threshold = 32 * 1024;

// lhs = rhs, where `cost_elements` is roughly how many elements the expression touches.
template <class Lhs, class Rhs>
void eval_into(const kernel_context& ctx, Lhs&& lhs, const Rhs& rhs, int64_t cost_elements) {
  if (cost_elements < parallel_eval_threshold || ctx.dev().eigen_cpu() == nullptr)
    lhs = rhs;
  else
    lhs.device(ctx.eigen_cpu()) = rhs;
}

}  // namespace caflow
