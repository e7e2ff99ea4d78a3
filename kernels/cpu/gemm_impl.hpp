#pragma once
// The definition of gemm (kernels/cpu/gemm.hpp), included only by the files that instantiate it.
#include <array>

#include "graph/core/tensor_views.hpp"
#include "kernels/cpu/gemm.hpp"

namespace caflow {

template <class T>
void gemm(const T* a, bool transpose_a, const T* b, bool transpose_b, T* out, int64_t m,
          int64_t k, int64_t n, const Eigen::ThreadPoolDevice* pool) {
  using index_pair = Eigen::IndexPair<Eigen::DenseIndex>;
  const Eigen::array<index_pair, 1> contracted{
      index_pair(transpose_a ? 0 : 1, transpose_b ? 1 : 0)};
  const std::array<Eigen::DenseIndex, 2> a_dims{transpose_a ? k : m, transpose_a ? m : k};
  const std::array<Eigen::DenseIndex, 2> b_dims{transpose_b ? n : k, transpose_b ? k : n};
  const std::array<Eigen::DenseIndex, 2> out_dims{m, n};
  const tensor_map<const T, 2> lhs(a, a_dims), rhs(b, b_dims);
  tensor_map<T, 2> res(out, out_dims);
  if (pool == nullptr)
    res = lhs.contract(rhs, contracted);
  else
    res.device(*pool) = lhs.contract(rhs, contracted);
}

}  // namespace caflow
