// Gradients of the element-wise math ops and MatMul, checked against central differences.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;

namespace {

using binary_fn = std::function<output(const scope&, const output&, const output&)>;
using unary_fn = std::function<output(const scope&, const output&)>;

tensor f64(const std::vector<double>& v, const tensor_shape& shape) {
  return tensor::from_vector<double>(v, shape);
}

// Checks d f(x, y) / dx and dy with x and y fed as placeholders of the values' shapes, or of
// unknown shape (so that the broadcast reduction is worked out at run time).
void check_binary(const binary_fn& f, const tensor& x, const tensor& y, bool known_shapes = true) {
  auto root = scope::new_root();
  auto shape_of = [&](const tensor& t) {
    return known_shapes ? partial_shape(t.shape()) : partial_shape::unknown();
  };
  auto px = ops::placeholder(root.with_op_name("x"), x.type(), {.shape = shape_of(x)});
  auto py = ops::placeholder(root.with_op_name("y"), y.type(), {.shape = shape_of(y)});
  check_gradients(root, {px, py}, f(root, px, py), {x, y});
}

void check_binary_broadcasts(const binary_fn& f) {
  // Positive, distinct values keep RealDiv, Pow, Maximum and Minimum away from their kinks.
  const tensor a23 = f64({0.5, 1.25, 2.0, 0.75, 1.5, 2.5}, {2, 3});
  const tensor b23 = f64({1.1, 0.6, 2.2, 1.7, 0.9, 1.3}, {2, 3});
  const tensor b3 = f64({0.8, 1.4, 1.9}, {3});
  const tensor a21 = f64({0.7, 1.6}, {2, 1});
  const tensor b13 = f64({1.2, 0.45, 2.1}, {1, 3});
  const tensor s = tensor::scalar<double>(1.35);
  const struct {
    const char* name;
    tensor x, y;
  } cases[] = {{"same shape", a23, b23},
               {"[2,3] with [3]", a23, b3},
               {"[3] with [2,3]", b3, a23},
               {"[2,1] with [1,3]", a21, b13},
               {"scalar with [2,3]", s, a23},
               {"[2,3] with scalar", a23, s},
               {"scalars", s, tensor::scalar<double>(0.65)}};
  for (const auto& c : cases) {
    INFO(std::string(c.name));
    check_binary(f, c.x, c.y);
  }
  INFO("shapes known at run time only");
  check_binary(f, a23, b3, false);
  check_binary(f, a21, b13, false);
}

void check_unary(const unary_fn& f, const std::vector<double>& values) {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  check_gradient(root, x, f(root, x), f64(values, {2, static_cast<int64_t>(values.size()) / 2}));
}

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

}  // namespace

TEST_CASE("Add and AddV2") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::add(s, x, y); });
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::add_v2(s, x, y); });
}

TEST_CASE("Sub") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::sub(s, x, y); });
}

TEST_CASE("Mul") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::mul(s, x, y); });
}

TEST_CASE("RealDiv") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::real_div(s, x, y); });
}

TEST_CASE("Maximum and Minimum") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::maximum(s, x, y); });
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::minimum(s, x, y); });
}

TEST_CASE("Maximum and Minimum give ties to x") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto y = ops::placeholder(root, dtype::float32);
  std::vector<output> gmax, gmin;
  REQUIRE(add_symbolic_gradients(root, {ops::maximum(root, x, y)}, {x, y}, &gmax).ok());
  REQUIRE(add_symbolic_gradients(root, {ops::minimum(root, x, y)}, {x, y}, &gmin).ok());
  auto out =
      run(root,
          {{x, tensor::from_vector<float>({1, 2, 3})}, {y, tensor::from_vector<float>({2, 2, 2})}},
          {gmax[0], gmax[1], gmin[0], gmin[1]});
  check_tensor(out[0], tensor_shape{3}, std::vector<float>{0, 1, 1});
  check_tensor(out[1], tensor_shape{3}, std::vector<float>{1, 0, 0});
  check_tensor(out[2], tensor_shape{3}, std::vector<float>{1, 1, 0});
  check_tensor(out[3], tensor_shape{3}, std::vector<float>{0, 0, 1});
}

TEST_CASE("Pow") {
  check_binary_broadcasts(
      [](const scope& s, const output& x, const output& y) { return ops::pow(s, x, y); });
  // A negative base with an integral exponent: d/dx x^3 = 3x^2, and d/dy is taken as 0.
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto y = ops::placeholder(root, dtype::float64);
  auto z = ops::pow(root, x, y);
  check_gradient(root, x, z, f64({-1.5, -0.5, 2.0}, {3}),
                 {.extra_feeds = {{y, f64({3, 3, 3}, {3})}}});
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {z}, {x, y}, &grads).ok());
  auto out = run(root, {{x, f64({-2, 0, 2}, {3})}, {y, f64({3, 3, 3}, {3})}}, grads);
  check_tensor(out[0], tensor_shape{3}, std::vector<double>{12, 0, 12});
  check_tensor(out[1], tensor_shape{3}, std::vector<double>{0, 0, 8 * std::log(2.0)});
}

TEST_CASE("AddN passes the gradient to every input") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root, dtype::float64);
  auto b = ops::placeholder(root, dtype::float64);
  auto c = ops::placeholder(root, dtype::float64);
  // b twice: its two shares are summed.
  auto y = ops::mul(root, ops::add_n(root, {a, b, c, b}), a);
  check_gradients(
      root, {a, b, c}, y,
      {f64({1, 2, 3, 4}, {2, 2}), f64({-1, 0.5, 2, 1}, {2, 2}), f64({0.25, 1, -3, 2}, {2, 2})});
}

TEST_CASE("unary functions") {
  const std::vector<double> any = {-1.5, -0.4, 0.3, 0.9, 1.7, 2.2};
  const std::vector<double> positive = {0.3, 0.6, 1.1, 1.9, 2.5, 4.0};
  const std::vector<double> nonzero = {-2.0, -0.7, 0.4, 0.8, 1.5, 3.0};
  SUBCASE("Neg") {
    check_unary([](const scope& s, const output& x) { return ops::neg(s, x); }, any);
  }
  SUBCASE("Square") {
    check_unary([](const scope& s, const output& x) { return ops::square(s, x); }, any);
  }
  SUBCASE("Sqrt") {
    check_unary([](const scope& s, const output& x) { return ops::sqrt(s, x); }, positive);
  }
  SUBCASE("Rsqrt") {
    check_unary([](const scope& s, const output& x) { return ops::rsqrt(s, x); }, positive);
  }
  SUBCASE("Exp") {
    check_unary([](const scope& s, const output& x) { return ops::exp(s, x); }, any);
  }
  SUBCASE("Log") {
    check_unary([](const scope& s, const output& x) { return ops::log(s, x); }, positive);
  }
  SUBCASE("Abs") {
    check_unary([](const scope& s, const output& x) { return ops::abs(s, x); }, nonzero);
  }
  SUBCASE("Reciprocal") {
    check_unary([](const scope& s, const output& x) { return ops::reciprocal(s, x); }, nonzero);
  }
  // Piecewise constant: no gradient flows, so only the direct factor x counts.
  SUBCASE("Sign") {
    check_unary([](const scope& s, const output& x) { return ops::mul(s, ops::sign(s, x), x); },
                nonzero);
  }
  SUBCASE("Floor") {
    check_unary([](const scope& s, const output& x) { return ops::add(s, ops::floor(s, x), x); },
                any);
  }
}

TEST_CASE("unary gradients in float32") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto y = ops::mul(root, ops::exp(root, x), ops::sqrt(root, x));
  const double error =
      check_gradient(root, x, y, tensor::from_vector<float>({0.5f, 1.0f, 1.5f, 2.0f}, {2, 2}),
                     {.delta = 1e-2, .tolerance = 1e-2});
  CHECK(error < 1e-2);
}

TEST_CASE("Cast between float types casts the gradient back") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  // Through float32 and back: rounding limits the finite differences' accuracy.
  auto y = ops::square(root, ops::cast(root, x, dtype::float32));
  check_gradient(root, x, y, f64({0.5, -1.25, 2.0}, {3}), {.delta = 1e-3, .tolerance = 1e-3});
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  CHECK(grads[0].type == dtype::float64);
}

TEST_CASE("Select routes the gradient to the branch taken") {
  auto root = scope::new_root();
  auto t = ops::placeholder(root, dtype::float64);
  auto e = ops::placeholder(root, dtype::float64);
  SUBCASE("element-wise condition") {
    auto c = ops::constant(root, std::vector<bool>{true, false, false, true, true, false}, {2, 3});
    auto y = ops::mul(root, ops::select(root, c, t, e), t);
    check_gradients(root, {t, e}, y,
                    {f64({1, 2, 3, 4, 5, 6}, {2, 3}), f64({-1, -2, -3, -4, -5, -6}, {2, 3})});
  }
  SUBCASE("a vector condition picks rows") {
    auto c = ops::constant(root, std::vector<bool>{false, true}, {2});
    auto y = ops::square(root, ops::select(root, c, t, e));
    check_gradients(root, {t, e}, y,
                    {f64({1, 2, 3, 4, 5, 6}, {2, 3}), f64({-1, -2, -3, -4, -5, -6}, {2, 3})});
  }
}

TEST_CASE("SelectV2 routes the gradient and sums it back over broadcast dims") {
  // condition [3,1], t [1,4], e [] broadcast to [3,4]: t's gradient sums each column over the
  // rows that took it, e's sums every element that took it.
  auto c = [](const scope& s) {
    return ops::constant(s, std::vector<bool>{true, false, true}, {3, 1});
  };
  const tensor tv = f64({1, -2, 0.5, 3}, {1, 4});
  const tensor ev = f64({-0.75}, {});
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    const auto shape = [&](partial_shape s) { return known ? s : partial_shape::unknown(); };
    auto t = ops::placeholder(root, dtype::float64, {.shape = shape(partial_shape{1, 4})});
    auto e = ops::placeholder(root, dtype::float64, {.shape = shape(tensor_shape{})});
    // Squared so the gradient depends on the value taken, and weighted per element.
    auto y = ops::mul(root, ops::square(root, ops::select_v2(root, c(root), t, e)),
                      ops::constant(root, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                              12},
                                    {3, 4}));
    check_gradients(root, {t, e}, y, {tv, ev});
    std::vector<output> grads;
    REQUIRE(add_symbolic_gradients(root, {y}, {t, e}, &grads).ok());
    session sess(root);
    auto out = sess.run({{t, tv}, {e, ev}}, {grads[0], grads[1]});
    REQUIRE(out.ok());
    // d/dt[j] = sum over rows 0 and 2 of 2 t[j] w[r][j]: w rows 1..4 and 9..12.
    check_tensor(out->at(0),
                 f64({2 * 1.0 * 10, -2 * 2.0 * 12, 2 * 0.5 * 14, 2 * 3.0 * 16}, {1, 4}));
    // d/de = 2 e * (5 + 6 + 7 + 8).
    check_tensor(out->at(1), f64({2 * -0.75 * 26}, {}));
  }
}

TEST_CASE("MatMul in every transpose combination") {
  const tensor a23 = f64({1, -2, 0.5, 3, 0.25, -1}, {2, 3});
  const tensor a32 = f64({1, -2, 0.5, 3, 0.25, -1}, {3, 2});
  const tensor b34 = f64({0.5, 1, -1, 2, 1.5, -0.5, 0.25, 1, -2, 0.75, 1, 0}, {3, 4});
  const tensor b43 = f64({0.5, 1, -1, 2, 1.5, -0.5, 0.25, 1, -2, 0.75, 1, 0}, {4, 3});
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      CAPTURE(ta);
      CAPTURE(tb);
      auto root = scope::new_root();
      auto a = ops::placeholder(root, dtype::float64);
      auto b = ops::placeholder(root, dtype::float64);
      auto y = ops::mat_mul(root, a, b, {.transpose_a = ta, .transpose_b = tb});
      check_gradients(root, {a, b}, y, {ta ? a32 : a23, tb ? b43 : b34});
    }
}

// MatMul's gradients against values worked out by hand: y = a b with a = [[1, 2]],
// b = [[3], [4]] and dL/dy = [[2]]: dL/da = 2 b^T = [[6, 8]], dL/db = 2 a^T = [[2], [4]].
TEST_CASE("MatMul gradient values") {
  auto root = scope::new_root();
  auto a = ops::constant(root, std::vector<float>{1, 2}, {1, 2});
  auto b = ops::constant(root, std::vector<float>{3, 4}, {2, 1});
  auto y = ops::mat_mul(root, a, b);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {a, b},
                                 {ops::constant(root, std::vector<float>{2}, {1, 1})}, &grads)
              .ok());
  auto out = run(root, {}, grads);
  check_tensor(out[0], tensor_shape{1, 2}, std::vector<float>{6, 8});
  check_tensor(out[1], tensor_shape{2, 1}, std::vector<float>{2, 4});
}
