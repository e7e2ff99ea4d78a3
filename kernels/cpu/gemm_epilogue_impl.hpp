#pragma once
// The definition of gemm_epilogue (kernels/cpu/gemm_epilogue.hpp), included only by the files
// that instantiate it.
#include <array>

#include "graph/core/tensor_views.hpp"
#include "kernels/cpu/gemm_epilogue.hpp"

namespace caflow {

// Eigen's output kernel: called once per finished block of the output. The output maps are
// row-major, so Eigen swaps the operands and its column-major block rows are the output's
// columns (the channels), contiguous, and its block columns are output rows.
template <class T>
struct epilogue_output_kernel {
  const channel_epilogue<T>* epilogue;

  template <typename Index, typename Scalar>
  EIGEN_ALWAYS_INLINE void operator()(
      const Eigen::internal::blas_data_mapper<Scalar, Index, Eigen::ColMajor>& block,
      const Eigen::TensorContractionParams& params, Index i, Index j, Index num_rows,
      Index num_cols) const {
    eigen_assert(params.swapped_arguments);
    EIGEN_UNUSED_VARIABLE(params);
    EIGEN_UNUSED_VARIABLE(j);
    for (Index col = 0; col < num_cols; ++col)
      epilogue->apply(&block(0, col), 1, 0, static_cast<int64_t>(i),
                      static_cast<int64_t>(num_rows));
  }
};

template <class T>
void gemm_epilogue(const T* a, bool transpose_a, const T* b, bool transpose_b, T* out,
                   int64_t m, int64_t k, int64_t n, const Eigen::ThreadPoolDevice* pool,
                   const channel_epilogue<T>& epilogue) {
  using index_pair = Eigen::IndexPair<Eigen::DenseIndex>;
  const Eigen::array<index_pair, 1> contracted{
      index_pair(transpose_a ? 0 : 1, transpose_b ? 1 : 0)};
  const std::array<Eigen::DenseIndex, 2> a_dims{transpose_a ? k : m, transpose_a ? m : k};
  const std::array<Eigen::DenseIndex, 2> b_dims{transpose_b ? n : k, transpose_b ? k : n};
  const std::array<Eigen::DenseIndex, 2> out_dims{m, n};
  const tensor_map<const T, 2> lhs(a, a_dims), rhs(b, b_dims);
  tensor_map<T, 2> res(out, out_dims);
  const epilogue_output_kernel<T> kernel{&epilogue};
  if (pool == nullptr)
    res = lhs.contract(rhs, contracted, kernel);
  else
    res.device(*pool) = lhs.contract(rhs, contracted, kernel);
}

}  // namespace caflow
