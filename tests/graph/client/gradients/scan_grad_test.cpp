// Gradients of Cumsum and Cumprod, checked against central differences for every
// exclusive/reverse combination and axis, and for Cumprod with zeros in the scanned slices.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::ramp_weighted;
using caflow::testing::check_tensor;

namespace {

// Values between -1.1 and 1.2 without zeros (so the product is not flat anywhere).
tensor x234() {
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>((i * 7) % 23) - 1.05;
  return tensor::from_vector<double>(v, {2, 3, 4});
}

using scan_fn = output (*)(const scope&, const output&, const output&,
                           const ops::cumulative_attrs&);

void check_every_way(scan_fn f, const tensor& value) {
  for (int axis : {0, 1, 2, -1})
    for (bool exclusive : {false, true})
      for (bool reverse : {false, true}) {
        CAPTURE(axis);
        CAPTURE(exclusive);
        CAPTURE(reverse);
        auto root = scope::new_root();
        auto x = ops::placeholder(root.with_op_name("x"), dtype::float64);
        auto y = f(root, x, ops::constant(root, int32_t{axis}),
                   {.exclusive = exclusive, .reverse = reverse});
        check_gradient(root, x, ramp_weighted(root, y), value);
      }
}

output cumsum(const scope& s, const output& x, const output& a, const ops::cumulative_attrs& at) {
  return ops::cumsum(s, x, a, at);
}
output cumprod(const scope& s, const output& x, const output& a, const ops::cumulative_attrs& at) {
  return ops::cumprod(s, x, a, at);
}

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

}  // namespace

TEST_CASE("Cumsum, every axis, exclusive and reversed") { check_every_way(cumsum, x234()); }

TEST_CASE("Cumprod, every axis, exclusive and reversed") { check_every_way(cumprod, x234()); }

TEST_CASE("Cumprod with one and with two zeros in a scanned slice") {
  // Along the last axis: row 0 has one zero in the middle, row 1 a zero at each end, row 2
  // two zeros side by side, row 3 none; the other axes see zeros too.
  const tensor x = tensor::from_vector<double>(
      {0.5, 0, -1.5, 2, 0, 1.5, -0.5, 0, 1.2, 0, 0, 0.7, 0.9, -1.1, 1.3, 0.6}, {4, 4});
  check_every_way(cumprod,
                  tensor::from_vector<double>(
                      std::vector<double>(x.data<double>(), x.data<double>() + 16), {2, 2, 4}));
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true})
      for (int axis : {0, 1}) {
        CAPTURE(exclusive);
        CAPTURE(reverse);
        CAPTURE(axis);
        auto root = scope::new_root();
        auto p = ops::placeholder(root, dtype::float64);
        check_gradient(root, p,
                       ramp_weighted(root, ops::cumprod(root, p, axis,
                                                   {.exclusive = exclusive, .reverse = reverse})),
                       x);
      }
}

// Hand-checked, with dy = 1: for y = cumprod([a, b, c]) = [a, ab, abc], dx = [1 + b + bc,
// a + ac, ab]. At [2, 0, 3]: [1, 8, 0]; at [0, 2, 0]: [3, 0, 0]. Exclusive ([1, a, ab]):
// [1 + b, a, 0], at [2, 0, 3]: [1, 2, 0].
TEST_CASE("Cumprod's gradient at zeros, by hand") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{3}});
  std::vector<output> g, ge;
  REQUIRE(add_symbolic_gradients(root, {ops::cumprod(root, x, 0)}, {x}, &g).ok());
  REQUIRE(
      add_symbolic_gradients(root, {ops::cumprod(root, x, 0, {.exclusive = true})}, {x}, &ge).ok());
  check_tensor<float>(run(root, {{x, tensor::from_vector<float>({2, 0, 3})}}, g)[0], {3},
                      {1, 8, 0});
  check_tensor<float>(run(root, {{x, tensor::from_vector<float>({0, 2, 0})}}, g)[0], {3},
                      {3, 0, 0});
  check_tensor<float>(run(root, {{x, tensor::from_vector<float>({2, 0, 3})}}, ge)[0], {3},
                      {1, 2, 0});
}

TEST_CASE("an axis fed at run time") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto axis = ops::placeholder(root, dtype::int64);
  auto y = ops::add(root, ops::cumsum(root, x, axis, {.reverse = true}),
                    ops::cumprod(root, x, axis, {.exclusive = true}));
  check_gradient(root, x, ramp_weighted(root, y), x234(),
                 {.extra_feeds = {{axis, tensor::scalar<int64_t>(-2)}}});
}
