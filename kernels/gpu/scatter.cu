// The row-update kernels of kernels/gpu/scatter_launch.hpp. A thread owns one element of one
// destination row and folds that row's updates into it in index order: the CPU's arithmetic in
// the CPU's order, so results agree bit for bit (no atomics, whose order varies).
#include "kernels/common/training_math.hpp"
#include "kernels/gpu/launch_config.cuh"
#include "kernels/gpu/scatter_launch.hpp"

namespace caflow::gpu {

namespace {

template <scatter_kind K, class T>
__device__ inline T apply(T a, T x) {
  if constexpr (K == scatter_kind::update) return x;
  else if constexpr (K == scatter_kind::add) return a + x;
  else if constexpr (K == scatter_kind::sub) return a - x;
  else if constexpr (K == scatter_kind::mul) return a * x;
  else if constexpr (K == scatter_kind::div) return a / x;
  else if constexpr (K == scatter_kind::min) return x < a ? x : a;
  else return x > a ? x : a;
}

template <scatter_kind K, class T>
__global__ void scatter_rows(T* var, int64_t row, const T* updates, bool scalar_update,
                             row_plan_view p) {
  const int64_t* order = p.data;
  const int64_t* starts = p.data + p.updates;
  const int64_t* dest = starts + p.rows + 1;
  CAFLOW_GRID_LOOP(i, p.rows * row) {
    const int64_t s = i / row, j = i - s * row;
    T* at = var + dest[s] * row + j;
    T acc = *at;
    for (int64_t q = starts[s]; q < starts[s + 1]; ++q)
      acc = apply<K>(acc, scalar_update ? updates[0] : updates[order[q] * row + j]);
    *at = acc;
  }
}

template <sparse_rule R, class T>
__global__ void sparse_apply(sparse_hyper<T> h, T* var, T* slot1, T* slot2, const T* grad,
                             int64_t row, row_plan_view p) {
  const int64_t* order = p.data;
  const int64_t* starts = p.data + p.updates;
  const int64_t* dest = starts + p.rows + 1;
  CAFLOW_GRID_LOOP(i, p.rows * row) {
    const int64_t s = i / row, j = i - s * row;
    const int64_t at = dest[s] * row + j;
    T v = var[at];
    T a = slot1 ? slot1[at] : T(0);
    T b = slot2 ? slot2[at] : T(0);
    for (int64_t q = starts[s]; q < starts[s + 1]; ++q) {
      const T g = grad[order[q] * row + j];
      if constexpr (R == sparse_rule::gradient_descent) v -= h.lr * g;
      else if constexpr (R == sparse_rule::momentum)
        v = training::momentum_update(v, g, h.lr, h.momentum, h.nesterov, a);
      else if constexpr (R == sparse_rule::adagrad)
        v = training::adagrad_update(v, g, h.lr, h.update_slots, a);
      else if constexpr (R == sparse_rule::rms_prop)
        v = training::rms_prop_update(v, g, h.lr, h.rho, h.momentum, h.epsilon, a, b);
      else v = training::ftrl_update(v, g, h.lr, h.l1, h.l2, h.lr_power, a, b);
    }
    var[at] = v;
    const bool writes_slot1 = R != sparse_rule::adagrad || h.update_slots;
    if (slot1 && writes_slot1) slot1[at] = a;
    if (slot2) slot2[at] = b;
  }
}

template <scatter_kind K, class T>
void scatter_with(T* var, int64_t row, const T* updates, bool scalar_update,
                  const row_plan_view& plan, cudaStream_t stream) {
  scatter_rows<K><<<blocks_for(plan.rows * row), threads_per_block, 0, stream>>>(
      var, row, updates, scalar_update, plan);
}

template <sparse_rule R, class T>
void apply_with(const sparse_hyper<T>& h, T* var, T* slot1, T* slot2, const T* grad, int64_t row,
                const row_plan_view& plan, cudaStream_t stream) {
  sparse_apply<R><<<blocks_for(plan.rows * row), threads_per_block, 0, stream>>>(
      h, var, slot1, slot2, grad, row, plan);
}

}  // namespace

template <class T>
void launch_scatter_rows(scatter_kind kind, T* var, int64_t row, const T* updates,
                         bool scalar_update, const row_plan_view& plan, cudaStream_t stream) {
  if (plan.rows == 0 || row == 0) return;
  switch (kind) {
    case scatter_kind::update: return scatter_with<scatter_kind::update>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::add: return scatter_with<scatter_kind::add>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::sub: return scatter_with<scatter_kind::sub>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::mul: return scatter_with<scatter_kind::mul>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::div: return scatter_with<scatter_kind::div>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::min: return scatter_with<scatter_kind::min>(var, row, updates, scalar_update, plan, stream);
    case scatter_kind::max: return scatter_with<scatter_kind::max>(var, row, updates, scalar_update, plan, stream);
  }
}

template <class T>
void launch_sparse_apply(sparse_rule rule, const sparse_hyper<T>& h, T* var, T* slot1, T* slot2,
                         const T* grad, int64_t row, const row_plan_view& plan,
                         cudaStream_t stream) {
  if (plan.rows == 0 || row == 0) return;
  switch (rule) {
    case sparse_rule::gradient_descent: return apply_with<sparse_rule::gradient_descent>(h, var, slot1, slot2, grad, row, plan, stream);
    case sparse_rule::momentum: return apply_with<sparse_rule::momentum>(h, var, slot1, slot2, grad, row, plan, stream);
    case sparse_rule::adagrad: return apply_with<sparse_rule::adagrad>(h, var, slot1, slot2, grad, row, plan, stream);
    case sparse_rule::rms_prop: return apply_with<sparse_rule::rms_prop>(h, var, slot1, slot2, grad, row, plan, stream);
    case sparse_rule::ftrl: return apply_with<sparse_rule::ftrl>(h, var, slot1, slot2, grad, row, plan, stream);
  }
}

template void launch_scatter_rows<float>(scatter_kind, float*, int64_t, const float*, bool, const row_plan_view&, cudaStream_t);
template void launch_scatter_rows<double>(scatter_kind, double*, int64_t, const double*, bool, const row_plan_view&, cudaStream_t);
template void launch_scatter_rows<int32_t>(scatter_kind, int32_t*, int64_t, const int32_t*, bool, const row_plan_view&, cudaStream_t);
template void launch_scatter_rows<int64_t>(scatter_kind, int64_t*, int64_t, const int64_t*, bool, const row_plan_view&, cudaStream_t);
template void launch_sparse_apply<float>(sparse_rule, const sparse_hyper<float>&, float*, float*, float*, const float*, int64_t, const row_plan_view&, cudaStream_t);
template void launch_sparse_apply<double>(sparse_rule, const sparse_hyper<double>&, double*, double*, double*, const double*, int64_t, const row_plan_view&, cudaStream_t);

}  // namespace caflow::gpu
