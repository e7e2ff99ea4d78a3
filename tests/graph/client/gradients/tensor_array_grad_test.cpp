// Gradients through the TensorArrayV3 family in straight-line graphs, checked against central
// differences: what goes into an array by write, scatter or split and comes out by read,
// gather or concat gets its gradient back through a gradient array.
#include <doctest/doctest.h>

#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::iota;
using caflow::testing::ramp_weighted;

namespace {

output input(const scope& s, const char* name, const partial_shape& shape) {
  return ops::placeholder(s.with_op_name(name), dtype::float64, {.shape = shape});
}
output i32(const scope& s, int v) { return ops::constant(s, int32_t{v}); }
output ivec(const scope& s, std::vector<int32_t> v) {
  return ops::constant(s, tensor::from_vector<int32_t>(v));
}

}  // namespace

TEST_CASE("Write then read: each value's gradient comes back from where it was read") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2});
  auto y = input(root, "y", {2});
  auto ta = ops::tensor_array(root, i32(root, 2), dtype::float64, {.clear_after_read = false});
  auto f1 = ops::tensor_array_write(root, ta.handle, i32(root, 0), x, ta.flow);
  auto f2 = ops::tensor_array_write(root, ta.handle, i32(root, 1), ops::square(root, y), f1);
  auto a = ops::tensor_array_read(root, ta.handle, i32(root, 1), f2, dtype::float64);
  auto b = ops::tensor_array_read(root, ta.handle, i32(root, 0), f2, dtype::float64);
  // Index 0 is read twice: its gradient arrives in two writes to the gradient array, summed.
  auto c = ops::tensor_array_read(root, ta.handle, i32(root, 0), f2, dtype::float64);
  auto loss = ops::add(root, ops::mul(root, a, b), ops::mul(root, c, c));
  check_gradients(root, {x, y}, ramp_weighted(root, loss),
                  {tensor::from_vector<double>({0.5, -1.5}), tensor::from_vector<double>({2.0, 0.7})});
}

TEST_CASE("Scatter then gather, and split then concat") {
  auto root = scope::new_root();
  auto x = input(root, "x", {3, 2});
  auto ta = ops::tensor_array(root, i32(root, 3), dtype::float64);
  auto f = ops::tensor_array_scatter(root, ta.handle, ivec(root, {2, 0, 1}), x, ta.flow);
  auto g = ops::tensor_array_gather(root, ta.handle, ivec(root, {1, 2}), f, dtype::float64);
  check_gradient(root, x, ramp_weighted(root, ops::mul(root, g, g)), iota<double>({3, 2}, 0.5));

  auto r2 = scope::new_root();
  auto v = input(r2, "v", {5, 2});
  auto tb = ops::tensor_array(r2, i32(r2, 3), dtype::float64, {.identical_element_shapes = false});
  auto fs = ops::tensor_array_split(r2, tb.handle, v,
                                    ops::constant(r2, tensor::from_vector<int64_t>({2, 0, 3})),
                                    tb.flow);
  auto cc = ops::tensor_array_concat(r2, tb.handle, fs, dtype::float64);
  check_gradient(r2, v, ramp_weighted(r2, ops::mul(r2, cc[0], cc[0])), iota<double>({5, 2}, -1.0));
}

TEST_CASE("Write then gather, scatter then read") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto ta = ops::tensor_array(root, i32(root, 2), dtype::float64);
  auto rows = ops::unpack(root, x, 2);
  auto f1 = ops::tensor_array_write(root, ta.handle, i32(root, 1), rows[0], ta.flow);
  auto f2 = ops::tensor_array_write(root, ta.handle, i32(root, 0), ops::exp(root, rows[1]), f1);
  auto g = ops::tensor_array_gather(root, ta.handle, ivec(root, {0, 1}), f2, dtype::float64);
  check_gradient(root, x, ramp_weighted(root, g), iota<double>({2, 3}, -0.5));

  auto r2 = scope::new_root();
  auto y = input(r2, "y", {3, 2});
  auto tb = ops::tensor_array(r2, i32(r2, 3), dtype::float64);
  auto fs = ops::tensor_array_scatter(r2, tb.handle, ivec(r2, {0, 1, 2}), y, tb.flow);
  auto a = ops::tensor_array_read(r2, tb.handle, i32(r2, 2), fs, dtype::float64);
  auto b = ops::tensor_array_read(r2, tb.handle, i32(r2, 0), fs, dtype::float64);
  // Index 1 is never read: its gradient is zeros.
  check_gradient(r2, y, ramp_weighted(r2, ops::mul(r2, a, ops::square(r2, b))),
                 iota<double>({3, 2}, 0.25));
}
