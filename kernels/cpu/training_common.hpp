#pragma once
// The frame every optimizer kernel (ApplyGradientDescent, ApplyAdam, ...) shares: lock the
// variable and its slot variables, check them, give each a writable buffer, and run the op's
// fused element loop once over all of them, split across the intra-op pool when large.
//
// Writable buffer: a variable's bytes are updated in place only when it owns them alone.
// When a reader still holds a snapshot (or the variable was assigned a Const's tensor) the
// loop reads the old buffer and writes a fresh one, which then replaces the variable's value:
// the copy costs nothing extra, since the update touches every element anyway.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <unsupported/Eigen/CXX11/Tensor>

#include "kernels/op_kernel.hpp"
#include "kernels/in_place.hpp"

namespace caflow::training {

// Updates of at least this many elements are split across the intra-op pool.
inline constexpr int64_t parallel_update_threshold = 64 * 1024;

// Reads scalar input `i` (a hyperparameter such as the learning rate).
template <class T>
status scalar_input(const kernel_context& ctx, int i, const char* name, T* out) {
  const tensor& t = ctx.input(i);
  if (t.rank() != 0)
    return errors::invalid_argument(name, " must be a scalar but has shape ",
                                    t.shape().to_string());
  *out = t.scalar_value<T>();
  return {};
}

// Marks an update's element loop as free of loop-carried dependences, so that it vectorizes
// although `out[k]` may equal `in[k]` (which rules out __restrict): element i of every output
// depends only on element i of the inputs. Loops copy the scalars they use into locals first,
// since a scalar captured by reference might, for all the compiler knows, alias an output.
#if defined(__clang__)
#define CAFLOW_UPDATE_LOOP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define CAFLOW_UPDATE_LOOP _Pragma("GCC ivdep")
#else
#define CAFLOW_UPDATE_LOOP
#endif

// Pointers to the current value of each updated variable (`in`) and to where its new value
// goes (`out`, equal to `in` when updated in place, else a buffer overlapping no input). Index
// 0 is the variable, then its slots in input order.
template <class T, size_t N>
struct update_buffers {
  std::array<const T*, N> in{};
  std::array<T*, N> out{};
};

namespace detail {

// Takes the variables' locks one inside another, in address order, so that two kernels
// sharing variables can never wait on each other.
template <size_t I, size_t N, class F>
status lock_in_order(const std::array<variable*, N>& vars, const std::array<size_t, N>& order,
                     std::array<tensor*, N>& values, F& fn) {
  if constexpr (I == N) {
    return fn(values);
  } else {
    return vars[order[I]]->update([&](tensor& value) -> status {
      values[order[I]] = &value;
      return lock_in_order<I + 1>(vars, order, values, fn);
    });
  }
}

}  // namespace detail

// Runs `loop(buffers, begin, end)` over the elements [0, n) of the variable behind ref input
// 0 and the slot variables behind ref inputs 1 .. N-1, with `grad` (input `grad_index`) of the
// same shape. `names` are the ref inputs' arg names, for messages; `writes[i]` is false for a
// slot the update only reads. `cycles` is the loop's cost per element, for shard sizing.
// Output 0 is set to the variable's reference.
template <class T, size_t N, class Loop>
void apply_update(kernel_context& ctx, const std::array<const char*, N>& names, int grad_index,
                  const std::array<bool, N>& writes, double cycles, Loop&& loop) {
  std::array<variable*, N> vars{};
  for (size_t i = 0; i < N; ++i) {
    vars[i] = ctx.input_ref(static_cast<int>(i)).get();
    for (size_t j = 0; j < i; ++j)
      CAFLOW_OP_REQUIRES(ctx, vars[j] != vars[i],
                         errors::invalid_argument("variable '", vars[i]->name(), "' is given as both ",
                                                  names[j], " and ", names[i]));
  }
  std::array<size_t, N> order{};
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vars[a] < vars[b]; });

  const tensor& grad = ctx.input(grad_index);
  auto update = [&](std::array<tensor*, N>& values) -> status {
    for (size_t i = 0; i < N; ++i) {
      if (!values[i]->initialized())
        return errors::failed_precondition("attempting to use uninitialized variable '",
                                           vars[i]->name(), "'");
    }
    const tensor_shape& shape = values[0]->shape();
    for (size_t i = 1; i < N; ++i) {
      if (values[i]->shape() != shape)
        return errors::invalid_argument(names[i], " '", vars[i]->name(), "' of shape ",
                                        values[i]->shape().to_string(), " does not match var '",
                                        vars[0]->name(), "' of shape ", shape.to_string());
    }
    if (grad.shape() != shape)
      return errors::invalid_argument("gradient of shape ", grad.shape().to_string(),
                                      " does not match var '", vars[0]->name(), "' of shape ",
                                      shape.to_string());

    update_buffers<T, N> bufs;
    std::array<tensor, N> fresh;
    for (size_t i = 0; i < N; ++i) {
      bufs.in[i] = values[i]->template data<T>();
      if (!writes[i]) continue;
      if (mutable_in_place(*values[i])) {
        bufs.out[i] = values[i]->template data<T>();
      } else {
        CAFLOW_ASSIGN_OR_RETURN(
            fresh[i], tensor::allocate(ctx.dev().get_allocator(), dtype_v<T>, shape));
        bufs.out[i] = fresh[i].template data<T>();
      }
    }

    const int64_t n = shape.num_elements();
    const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
    if (n < parallel_update_threshold || pool == nullptr) {
      loop(bufs, int64_t{0}, n);
    } else {
      const double bytes = static_cast<double>(sizeof(T));
      size_t written = 0;
      for (bool w : writes) written += w ? 1 : 0;
      pool->parallelFor(n, Eigen::TensorOpCost(bytes * (N + 1), bytes * written, cycles),
                        [&](Eigen::Index begin, Eigen::Index end) {
                          loop(bufs, static_cast<int64_t>(begin), static_cast<int64_t>(end));
                        });
    }
    for (size_t i = 0; i < N; ++i) {
      if (fresh[i].initialized()) *values[i] = std::move(fresh[i]);
    }
    return {};
  };
  std::array<tensor*, N> values{};
  CAFLOW_OP_REQUIRES_OK(ctx, detail::lock_in_order<0>(vars, order, values, update));
  ctx.set_output_ref(0, ctx.input_ref(0));
}

}  // namespace caflow::training
