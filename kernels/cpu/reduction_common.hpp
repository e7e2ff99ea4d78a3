#pragma once
// The machinery shared by the Sum, Mean, Max, Min and Prod kernels.
//
// Adjacent dims that are all kept or all reduced are collapsed into runs (size-1 dims dropped),
// and the reduction runs as a few passes, each reducing the middle dim of an
// [outer, size, inner] view. One pass suffices for the usual patterns (everything, the rows,
// the columns, the middle of three runs); rarer patterns reduce one run per pass through
// scratch tensors. Each reducer and type thus instantiates only four Eigen reduction shapes.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "kernels/common/reduction_plan.hpp"
#include "kernels/cpu/eigen_eval.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {

// One pass on the calling thread or the intra-op pool: out[o, i] = reduce_s in[o, s, i].
template <class T, class Reducer>
void reduce_pass(const kernel_context& ctx, const T* in, T* out, const reduction_pass& p) {
  using index = Eigen::DenseIndex;
  static constexpr std::array<index, 1> first{0}, second{1};
  const Reducer reducer;
  const int64_t cost = p.outer * p.size * p.inner;
  if (p.outer == 1 && p.inner == 1) {
    tensor_map<T, 0> y(out);
    eval_into(ctx, y, tensor_map<const T, 1>(in, p.size).reduce(first, reducer), cost);
  } else if (p.inner == 1) {
    tensor_map<T, 1> y(out, p.outer);
    eval_into(ctx, y, tensor_map<const T, 2>(in, p.outer, p.size).reduce(second, reducer), cost);
  } else if (p.outer == 1) {
    tensor_map<T, 1> y(out, p.inner);
    eval_into(ctx, y, tensor_map<const T, 2>(in, p.size, p.inner).reduce(first, reducer), cost);
  } else {
    tensor_map<T, 2> y(out, p.outer, p.inner);
    eval_into(ctx, y, tensor_map<const T, 3>(in, p.outer, p.size, p.inner).reduce(second, reducer),
              cost);
  }
}

// Sum, Max, Min and Prod are a Reducer; Mean is a SumReducer followed by a division.
template <class T, class Reducer, bool Mean = false>
class reduction_op final : public op_kernel {
 public:
  explicit reduction_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("keep_dims", &keep_dims_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& in = ctx.input(0);
    auto plan = plan_reduction(in.shape(), ctx.input(1), keep_dims_);
    CAFLOW_OP_REQUIRES_OK(ctx, plan.get_status());
    if (plan->num_passes == 0) {
      ctx.set_output(0, in.reshaped(plan->output_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, plan->output_shape);
    if (out == nullptr) return;
    const int64_t n = out->num_elements();
    T* y = out->data<T>();
    if (in.num_elements() == 0) {
      const T identity = Mean ? std::numeric_limits<T>::quiet_NaN() : Reducer().initialize();
      std::fill(y, y + n, identity);
      return;
    }
    const T* x = in.data<T>();
    tensor scratch[2];
    for (int i = 0; i < plan->num_passes; ++i) {
      const reduction_pass& p = plan->passes[i];
      T* dst = y;
      if (i + 1 < plan->num_passes) {
        auto t = ctx.allocate_temp(dtype_v<T>, tensor_shape{p.outer * p.inner});
        CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
        scratch[i % 2] = std::move(t).value();
        dst = scratch[i % 2].data<T>();
      }
      reduce_pass<T, Reducer>(ctx, x, dst, p);
      x = dst;
    }
    if constexpr (Mean) {
      auto o = flat<T>(*out);
      eval_into(ctx, o, o / o.constant(static_cast<T>(plan->reduced_elements)), n);
    }
  }

 private:
  bool keep_dims_ = false;
};

}  // namespace caflow
