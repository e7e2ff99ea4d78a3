#pragma once
// Eigen TensorMap views over a tensor's bytes: no copy, row-major, as kernels see tensors.
//
//   auto x = flat<float>(t);            // rank 1, every element
//   auto m = matrix<float>(t);          // REQUIRES rank 2
//   auto v = shaped<float, 3>(t, {a, b, c});  // any reshaping with the same element count
#include <array>
#include <cassert>
#include <unsupported/Eigen/CXX11/Tensor>

#include "graph/core/tensor.hpp"

namespace caflow {

template <class T, int N>
using tensor_map = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Eigen::DenseIndex>>;

template <class T>
tensor_map<T, 1> flat(const tensor& t) {
  assert(t.type() == dtype_v<std::remove_const_t<T>>);
  return tensor_map<T, 1>(t.data<std::remove_const_t<T>>(), t.num_elements());
}

template <class T, int N>
tensor_map<T, N> shaped(const tensor& t, const std::array<Eigen::DenseIndex, N>& dims) {
  assert(t.type() == dtype_v<std::remove_const_t<T>>);
  return tensor_map<T, N>(t.data<std::remove_const_t<T>>(), dims);
}

// REQUIRES: t.rank() == N.
template <class T, int N>
tensor_map<T, N> shaped(const tensor& t) {
  assert(t.rank() == N);
  std::array<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.dim(i);
  return shaped<T, N>(t, dims);
}

template <class T>
tensor_map<T, 2> matrix(const tensor& t) {
  return shaped<T, 2>(t);
}

template <class T>
Eigen::TensorMap<Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor>> scalar_view(
    const tensor& t) {
  return Eigen::TensorMap<Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor>>(
      t.data<std::remove_const_t<T>>());
}

}  // namespace caflow
