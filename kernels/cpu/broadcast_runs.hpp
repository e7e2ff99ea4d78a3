#pragma once
// Walks an output shape that K inputs broadcast to (numpy rules: shapes aligned at the right,
// dims of 1 repeated), one run of the innermost dim at a time. For SelectV2's three inputs and
// Prelu's two, which kernels/cpu/cwise_binary.hpp's two-input plans do not cover.
#include <array>
#include <cstdint>
#include <vector>

#include "graph/core/shape.hpp"

namespace caflow::cwise {

// Calls fn(out_offset, in_offsets, in_steps, length) for every run of the output's last dim:
// output elements [out_offset, out_offset + length) read input k at in_offsets[k] + j *
// in_steps[k] (step 0 where input k is broadcast along the last dim). REQUIRES: every input
// broadcasts to `out`.
template <size_t K, class F>
void for_each_broadcast_run(const tensor_shape& out, const std::array<tensor_shape, K>& ins,
                            F&& fn) {
  const int rank = out.rank();
  if (out.num_elements() == 0) return;
  std::array<int64_t, K> offsets{}, steps{};
  if (rank == 0) {
    fn(int64_t{0}, offsets, steps, int64_t{1});
    return;
  }
  // strides[k][d]: how far input k moves when output dim d advances by one (0: broadcast).
  std::array<std::vector<int64_t>, K> strides;
  for (size_t k = 0; k < K; ++k) {
    strides[k].assign(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int d = rank - 1, i = ins[k].rank() - 1; d >= 0 && i >= 0; --d, --i) {
      if (ins[k].dim(i) != 1) strides[k][d] = stride;
      stride *= ins[k].dim(i);
    }
    steps[k] = strides[k][rank - 1];
  }
  const int64_t length = out.dim(rank - 1), runs = out.num_elements() / length;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);  // over dims [0, rank - 1)
  for (int64_t r = 0; r < runs; ++r) {
    fn(r * length, offsets, steps, length);
    for (int d = rank - 2; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
      if (++index[d] < out.dim(d)) break;
      for (size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * out.dim(d);
      index[d] = 0;
    }
  }
}

}  // namespace caflow::cwise
