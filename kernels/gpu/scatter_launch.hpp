#pragma once
// Row updates of a variable on the GPU (Scatter*, SparseApply*), driven by a row_scatter_plan
// (kernels/common/row_scatter_plan.hpp) already in device memory: one thread per element of
// each destination row, applying that row's updates in index order, as the CPU kernels do.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace caflow::gpu {

// A plan's int64 array on the device: order[updates] | starts[rows + 1] | dest[rows].
struct row_plan_view {
  const int64_t* data = nullptr;
  int64_t updates = 0;
  int64_t rows = 0;
};

enum class scatter_kind : uint8_t { update, add, sub, mul, div, min, max };

// var[dest, j] = var[dest, j] op updates[k, j] for the plan's positions k of each row
// (updates[0] for every element when `scalar_update`). `row`: elements per row.
template <class T>
void launch_scatter_rows(scatter_kind kind, T* var, int64_t row, const T* updates,
                         bool scalar_update, const row_plan_view& plan, cudaStream_t stream);

enum class sparse_rule : uint8_t { gradient_descent, momentum, adagrad, rms_prop, ftrl };

// The hyperparameters a rule reads (kernels/common/training_math.hpp): gradient descent lr
// (its alpha); momentum lr, momentum, nesterov; adagrad lr, update_slots; RMSProp lr, rho,
// momentum, epsilon; FTRL lr, l1, l2, lr_power.
template <class T>
struct sparse_hyper {
  T lr{}, momentum{}, rho{}, epsilon{}, l1{}, l2{}, lr_power{};
  bool nesterov = false, update_slots = true;
};

// The rule on the rows of var and its slots (null where the rule has fewer; slot1 is only
// read by adagrad without update_slots) for grad's rows at the plan's positions.
template <class T>
void launch_sparse_apply(sparse_rule rule, const sparse_hyper<T>& h, T* var, T* slot1, T* slot2,
                         const T* grad, int64_t row, const row_plan_view& plan,
                         cudaStream_t stream);

}  // namespace caflow::gpu
