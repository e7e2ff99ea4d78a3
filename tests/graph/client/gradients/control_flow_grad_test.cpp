// Gradients through cond and while_loop, checked by finite differences.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/control_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/matmul_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::ramp_weighted;

namespace {

output f64(const scope& s, double v) { return ops::constant(s, tensor::scalar<double>(v)); }
output i32(const scope& s, int32_t v) { return ops::constant(s, tensor::scalar<int32_t>(v)); }

tensor values(std::vector<double> v, tensor_shape shape) {
  return tensor::from_vector<double>(v, shape);
}

}  // namespace

TEST_CASE("the gradient through a cond follows the taken branch") {
  for (bool taken : {true, false}) {
    CAPTURE(taken);
    auto root = scope::new_root();
    auto x = ops::placeholder(root.with_op_name("x"), dtype::float64, {.shape = {3}});
    auto w = ops::placeholder(root.with_op_name("w"), dtype::float64, {.shape = {3}});
    auto p = ops::placeholder(root.with_op_name("p"), dtype::boolean, {.shape = {}});
    auto y = ops::cond(
        root, p,
        [&](const scope& t) { return std::vector{ops::mul(t, ops::square(t, x), w)}; },
        [&](const scope& f) { return std::vector{ops::exp(f, ops::mul(f, x, f64(f, 0.3)))}; });
    REQUIRE(root.ok());
    check_gradients(root, {x, w}, ramp_weighted(root, y[0]),
                    {values({0.5, -1.0, 2.0}, {3}), values({1.5, 0.25, -2.0}, {3})},
                    {.extra_feeds = {{p, tensor::scalar(taken)}}});
  }
}

TEST_CASE("the gradient of a while loop: powers, a data-dependent trip count, outside values") {
  // y = x * w^n, where the loop runs while the value's magnitude is below a bound: the trip
  // count depends on the data, and w is read from outside the loop in every iteration.
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float64, {.shape = {2}});
  auto w = ops::placeholder(root.with_op_name("w"), dtype::float64, {.shape = {2}});
  auto out = ops::while_loop(
      root, {i32(root, 0), x},
      [&](const scope& c, const std::vector<output>& v) {
        return ops::less(c, ops::sum(c, ops::square(c, v[1]), {0}), f64(c, 20.0));
      },
      [&](const scope& b, const std::vector<output>& v) {
        return std::vector{ops::add(b, v[0], i32(b, 1)),
                           ops::tanh(b, ops::mul(b, v[1], w))};
      },
      {.parallel_iterations = 4, .maximum_iterations = 6, .shape_invariants = {}});
  REQUIRE(root.ok());
  check_gradients(root, {x, w}, ramp_weighted(root, out[1]),
                  {values({0.7, -0.4}, {2}), values({1.3, 0.9}, {2})});
}

TEST_CASE("the gradient of an RNN-style loop over a matrix") {
  // h <- tanh(h W + b), three times: W and b are outside values, h the loop variable.
  auto root = scope::new_root();
  auto h0 = ops::placeholder(root.with_op_name("h0"), dtype::float64, {.shape = {2, 3}});
  auto wt = ops::placeholder(root.with_op_name("w"), dtype::float64, {.shape = {3, 3}});
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float64, {.shape = {3}});
  auto out = ops::while_loop(
      root, {i32(root, 0), h0},
      [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 3)); },
      [&](const scope& s, const std::vector<output>& v) {
        return std::vector{ops::add(s, v[0], i32(s, 1)),
                           ops::tanh(s, ops::add(s, ops::mat_mul(s, v[1], wt), b))};
      });
  REQUIRE(root.ok());
  check_gradients(root, {h0, wt, b}, ramp_weighted(root, out[1]),
                  {values({0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, {2, 3}),
                   values({0.5, -0.1, 0.2, 0.3, 0.6, -0.4, 0.1, 0.2, 0.7}, {3, 3}),
                   values({0.05, -0.05, 0.1}, {3})});
}

TEST_CASE("the gradient reaches a loop variable whose final value is not used") {
  // (a, b) <- (a * b, b * 0.9): only a leaves the loop, yet b carries gradient into a.
  auto root = scope::new_root();
  auto a0 = ops::placeholder(root.with_op_name("a0"), dtype::float64, {.shape = {2}});
  auto b0 = ops::placeholder(root.with_op_name("b0"), dtype::float64, {.shape = {2}});
  auto out = ops::while_loop(
      root, {i32(root, 0), a0, b0},
      [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 4)); },
      [&](const scope& s, const std::vector<output>& v) {
        return std::vector{ops::add(s, v[0], i32(s, 1)), ops::mul(s, v[1], v[2]),
                           ops::tanh(s, ops::mul(s, v[2], f64(s, 0.9)))};
      });
  REQUIRE(root.ok());
  check_gradients(root, {a0, b0}, ramp_weighted(root, out[1]),
                  {values({0.3, -0.8}, {2}), values({1.1, 0.6}, {2})});
}

TEST_CASE("back_prop = false: the loop's results carry no gradient") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float64, {.shape = {2}});
  auto out = ops::while_loop(
      root, {i32(root, 0), x},
      [&](const scope& c, const std::vector<output>& v) { return ops::less(c, v[0], i32(c, 3)); },
      [&](const scope& s, const std::vector<output>& v) {
        return std::vector{ops::add(s, v[0], i32(s, 1)), ops::mul(s, v[1], v[1])};
      },
      {.parallel_iterations = 10, .maximum_iterations = {}, .shape_invariants = {},
       .back_prop = false});
  REQUIRE(root.ok());
  // y = loop(x) + x: only the direct term has a gradient.
  auto y = ops::add(root, out[1], x);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  session sess(root);
  auto g = sess.run({{x, values({0.5, 2.0}, {2})}}, {grads[0], y});
  REQUIRE(g.ok());
  caflow::testing::check_tensor(g->at(0), tensor_shape{2}, std::vector<double>{1, 1});
  caflow::testing::check_tensor(g->at(1), tensor_shape{2}, std::vector<double>{0.5 + 0.00390625, 2 + 256});
}
