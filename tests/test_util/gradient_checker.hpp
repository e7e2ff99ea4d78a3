#pragma once
// Checks symbolic gradients against central finite differences, for the gradient tests of
// every differentiable op:
//
//   auto root = scope::new_root();
//   auto x = ops::placeholder(root, dtype::float64);
//   auto y = ops::tanh(root, x);
//   check_gradient(root, x, y, iota<double>({2, 3}, -1.0));
//
// It builds y's gradient with add_symbolic_gradients, then for every element of x compares
// the Jacobian column computed symbolically (feeding one-hot grad_ys) with
// (y(x + h e_i) - y(x - h e_i)) / 2h, and fails the test on the first mismatch, naming the
// element. Use float64 inputs (h = 1e-6, tolerance 1e-5 relative) unless the op has no
// float64 kernel; then float32 works with h = 1e-2 and tolerance 1e-2.
#include <doctest/doctest.h>

#include <vector>

#include "graph/client/gradients/gradients.hpp"
#include "graph/core/tensor.hpp"

namespace caflow::testing {

struct gradient_check_options {
  double delta = 1e-6;      // finite-difference step h
  double tolerance = 1e-5;  // max |symbolic - numeric| / max(1, |numeric|)
  // Other placeholders of the graph and their values (e.g. labels, a fixed second operand).
  std::vector<std::pair<output, tensor>> extra_feeds = {};
};

// Checks d y / d x where x is a placeholder fed with `x_value`. Returns the largest error seen
// (also asserted with CHECK against the tolerance).
double check_gradient(const scope& root, const output& x, const output& y, const tensor& x_value,
                      const gradient_check_options& opts = {});

// Several inputs at once: checks d y / d xs[i] for every i.
double check_gradients(const scope& root, const std::vector<output>& xs, const output& y,
                       const std::vector<tensor>& x_values,
                       const gradient_check_options& opts = {});

// y * (1, 2, 3, ...) laid out like y, whatever its shape: summed into a loss, the gradient
// flowing into y differs per element, so a gradient that mixes elements up is caught.
output ramp_weighted(const scope& s, const output& y);

}  // namespace caflow::testing
