#pragma once
// The one fixture every kernel test uses: run a single kernel on the CPU with given input
// tensors and attrs, and compare outputs with a tolerance.
//
//   auto out = run_kernel("MatMul", {a, b}, {{"transpose_b", true}});
//   REQUIRE(out.ok());
//   check_tensor(out->at(0), tensor::from_vector<float>({...}, {2, 2}));
//
// Type attrs of single-tensor args ("T") and list lengths ("N") are inferred from the inputs
// the way ops:: functions infer them. Before running, the op's shape function sees the inputs
// (shapes and values); afterwards every output is checked against the inferred shape and the
// declared dtype, so a wrong shape function fails the test too. Pass {.infer_shapes = false}
// to reach the kernel's own checks of inputs a shape function would have rejected.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "graph/core/tensor.hpp"
#include "graph/ir/attr_value.hpp"

namespace caflow::testing {

struct run_options {
  // false: run the kernel as an executor does when shapes were unknown at graph construction,
  // so only the kernel's own run-time checks stand in the way of bad inputs.
  bool infer_shapes = true;
};

status_or<std::vector<tensor>> run_kernel(const std::string& op, const std::vector<tensor>& inputs,
                                          std::map<std::string, attr_value> attrs = {},
                                          const run_options& opts = {});

// 0, 1, 2, ... (plus `start`) laid out in `shape`, like numpy's arange(n).reshape(shape).
template <class T>
tensor iota(const tensor_shape& shape, T start = 0) {
  std::vector<T> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return tensor::from_vector<T>(v, shape);
}

// An int32 vector, the usual index argument (axes, begin, perm, ...).
inline tensor vec32(const std::vector<int32_t>& v) { return tensor::from_vector<int32_t>(v); }

// run_kernel with {.infer_shapes = false}: for tests of a kernel's own run-time checks.
inline status_or<std::vector<tensor>> run_kernel_unchecked(
    const std::string& op, const std::vector<tensor>& inputs,
    std::map<std::string, attr_value> attrs = {}) {
  return run_kernel(op, inputs, std::move(attrs), {.infer_shapes = false});
}

// Exact for integer and bool tensors, |a - e| <= tol * max(1, |e|) for floating point.
void check_tensor(const tensor& actual, const tensor& expected, double tol = 1e-5);

template <class T>
void check_tensor(const tensor& actual, const tensor_shape& shape, const std::vector<T>& values,
                  double tol = 1e-5) {
  check_tensor(actual, tensor::from_vector<T>(values, shape), tol);
}

// REQUIRES an error whose message contains `needle`.
void check_error(const status& st, const std::string& needle);
template <class T>
void check_error(const status_or<T>& r, const std::string& needle) {
  REQUIRE_FALSE(r.ok());
  check_error(r.get_status(), needle);
}

}  // namespace caflow::testing
