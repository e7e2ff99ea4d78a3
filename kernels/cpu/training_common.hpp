#pragma once
// The CPU side of every optimizer kernel (ApplyGradientDescent, ApplyAdam, ...): the
// variables are locked, checked and given writable buffers by kernels/common/training_update.hpp,
// and the op's fused element loop runs once over all of them, split across the intra-op pool
// when large.
#include <array>
#include <unsupported/Eigen/CXX11/Tensor>

#include "kernels/common/training_update.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::training {

// Updates of at least this many elements are split across the intra-op pool.
inline constexpr int64_t parallel_update_threshold = 64 * 1024;

// Reads scalar input `i` (a hyperparameter such as the learning rate).
template <class T>
status scalar_input(const kernel_context& ctx, int i, const char* name, T* out) {
  const tensor& t = ctx.input(i);
  CAFLOW_RETURN_IF_ERROR(check_scalar(t, name));
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

// Runs `loop(buffers, begin, end)` over the elements [0, n) of the variable behind ref input
// 0 and the slot variables behind ref inputs 1 .. N-1, with `grad` (input `grad_index`) of the
// same shape. `names` are the ref inputs' arg names, for messages; `writes[i]` is false for a
// slot the update only reads. `cycles` is the loop's cost per element, for shard sizing.
// Output 0 is set to the variable's reference.
template <class T, size_t N, class Loop>
void apply_update(kernel_context& ctx, const std::array<const char*, N>& names, int grad_index,
                  const std::array<bool, N>& writes, double cycles, Loop&& loop) {
  auto allocate = [&](dtype type, const tensor_shape& shape) {
    return tensor::allocate(ctx.dev().variable_allocator(), type, shape);
  };
  auto run = [&](const update_buffers<T, N>& bufs) {
    const Eigen::ThreadPoolDevice* pool = ctx.dev().eigen_cpu();
    if (bufs.n < parallel_update_threshold || pool == nullptr) {
      loop(bufs, int64_t{0}, bufs.n);
      return;
    }
    const double bytes = static_cast<double>(sizeof(T));
    size_t written = 0;
    for (bool w : writes) written += w ? 1 : 0;
    pool->parallelFor(bufs.n, Eigen::TensorOpCost(bytes * (N + 1), bytes * written, cycles),
                      [&](Eigen::Index begin, Eigen::Index end) {
                        loop(bufs, static_cast<int64_t>(begin), static_cast<int64_t>(end));
                      });
  };
  locked_update<T, N>(ctx, names, ctx.input(grad_index).shape(), writes, allocate, run);
}

}  // namespace caflow::training
