#pragma once
// The frame every device's optimizer kernels (ApplyGradientDescent, ApplyAdam, ...) share:
// the variable and its slot variables are locked together, checked against each other and
// the gradient, and each given a writable buffer; what a device then does with the buffers (a
// fused loop on the CPU, one launch on the GPU) is its kernel's business.
//
// Writable buffer: a variable's bytes are updated in place only when it owns them alone.
// When a reader still holds a snapshot (or the variable was assigned a Const's tensor) the
// update reads the old buffer and writes a fresh one, which then replaces the variable's
// value: the copy costs nothing extra, since the update touches every element anyway.
#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <utility>
#include <span>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/framework/op_kernel.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow::training {

// A hyperparameter input (learning rate, decay, ...) is a scalar; `name` is its arg name.
status check_scalar(const tensor& t, const char* name);

// Where an update reads each variable's current value (`in`) and writes its new one (`out`:
// equal to `in` when updated in place, else a buffer overlapping no input; null for a slot
// the update only reads). Index 0 is the variable, then its slots in input order; every
// buffer holds n elements.
template <class T, size_t N>
struct update_buffers {
  std::array<const T*, N> in{};
  std::array<T*, N> out{};
  int64_t n = 0;
};

namespace detail {

// The variables behind ref inputs [0, vars.size()): each one a variable, none given twice.
status ref_variables(const kernel_context& ctx, std::span<const char* const> names,
                     std::span<variable*> vars);
// The locked values: initialized and all of one shape.
status check_values(std::span<tensor* const> values, std::span<variable* const> vars,
                    std::span<const char* const> names);
// A dense gradient has the variable's shape.
status check_dense_grad(const tensor_shape& grad, const variable& var, const tensor& value);

}  // namespace detail

// Calls run(buffers) while holding the locks of the variables behind ref inputs 0 .. N-1 (the
// variable, then its slots), after checking them and then check(var_value, var) -> status
// (the gradient against the variable; nothing is written when either fails); `names` are the
// ref inputs' arg names, for messages. writes[i] is false for a slot the update only reads.
// allocate(dtype, shape) gives a fresh status_or<tensor> where the kernel's device keeps
// variables (device::variable_allocator: an update that finds a variable elsewhere, or shared,
// writes there); run returns nothing and must have written every element of every `out`
// buffer (or queued the writes on the device's stream) when it returns: a fresh `out` starts
// uninitialized, so an update of some rows only copies `in` there first. Locks are taken in
// address order, so two updates sharing variables never wait on each other. Output 0 is set
// to the variable's reference.
template <class T, size_t N, class Check, class Allocate, class Run>
void locked_update_checked(kernel_context& ctx, const std::array<const char*, N>& names,
                           Check&& check, const std::array<bool, N>& writes, Allocate&& allocate,
                           Run&& run) {
  std::array<variable*, N> vars{};
  CAFLOW_OP_REQUIRES_OK(ctx, detail::ref_variables(ctx, names, vars));
  std::array<size_t, N> order{};
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vars[a] < vars[b]; });
  std::array<tensor*, N> values{};
  auto update = [&]() -> status {
    CAFLOW_RETURN_IF_ERROR(detail::check_values(values, vars, names));
    CAFLOW_RETURN_IF_ERROR(check(*values[0], *vars[0]));
    const tensor_shape& shape = values[0]->shape();
    update_buffers<T, N> bufs;
    bufs.n = shape.num_elements();
    std::array<tensor, N> fresh;
    for (size_t i = 0; i < N; ++i) {
      bufs.in[i] = values[i]->template data<T>();
      if (!writes[i]) continue;
      if (update_in_place(*values[i], ctx.dev())) {
        bufs.out[i] = values[i]->template data<T>();
      } else if (ctx.dev().is_capturing()) {
        // A replay would write the fresh buffer again but the variable would keep the old one.
        return errors::failed_precondition("variable '", vars[i]->name(),
                                           "' is shared with a reader, so its update cannot be "
                                           "recorded in place");
      } else {
        CAFLOW_ASSIGN_OR_RETURN(fresh[i], allocate(dtype_v<T>, shape));
        bufs.out[i] = fresh[i].template data<T>();
      }
    }
    run(bufs);
    for (size_t i = 0; i < N; ++i) {
      if (fresh[i].initialized()) *values[i] = std::move(fresh[i]);
    }
    return {};
  };
  // variable::update holds its lock only during the call: nest the calls to hold all at once.
  auto lock_from = [&](auto&& self, size_t k) -> status {
    if (k == N) return update();
    return vars[order[k]]->update([&](tensor& value) -> status {
      values[order[k]] = &value;
      return self(self, k + 1);
    });
  };
  CAFLOW_OP_REQUIRES_OK(ctx, lock_from(lock_from, 0));
  ctx.set_output_ref(0, ctx.input_ref(0));
}

// locked_update_checked for a dense update: `grad` must have the variable's shape.
template <class T, size_t N, class Allocate, class Run>
void locked_update(kernel_context& ctx, const std::array<const char*, N>& names,
                   const tensor_shape& grad, const std::array<bool, N>& writes,
                   Allocate&& allocate, Run&& run) {
  locked_update_checked<T, N>(
      ctx, names,
      [&](const tensor& value, const variable& var) {
        return detail::check_dense_grad(grad, var, value);
      },
      writes, std::forward<Allocate>(allocate), std::forward<Run>(run));
}

}  // namespace caflow::training
