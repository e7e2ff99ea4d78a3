// Gradients of Sum, Mean, Max, Min and Prod, checked against central differences, with axes
// and shapes known at graph construction and only at run time.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_tensor;

namespace {

using reduce_fn =
    std::function<output(const scope&, const output&, const output&, const ops::reduce_attrs&)>;

// Distinct values, so that Max and Min have no ties for the finite differences to trip on.
tensor x234() {
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>((i * 7) % 24) - 1.0;
  return tensor::from_vector<double>(v, {2, 3, 4});
}

tensor axes_tensor(const std::vector<int32_t>& axes) { return tensor::from_vector<int32_t>(axes); }

// The reduction over `axes` of a [2, 3, 4] input, squared afterwards so the gradient
// flowing in is not uniform; x's shape (all of it, its rank, or nothing) and the axes are
// given to the graph or only fed.
void check_reduction(const reduce_fn& f, const std::vector<int32_t>& axes, bool keep_dims,
                     const partial_shape& shape, bool constant_axes) {
  CAPTURE(keep_dims);
  INFO("x declared as ", shape.to_string());
  CAPTURE(constant_axes);
  auto root = scope::new_root();
  const tensor x_value = x234();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float64, {.shape = shape});
  testing::gradient_check_options opts;
  output a;
  if (constant_axes) {
    a = ops::constant(root, axes_tensor(axes));
  } else {
    a = ops::placeholder(root.with_op_name("axes"), dtype::int32);
    opts.extra_feeds.emplace_back(a, axes_tensor(axes));
  }
  auto y = ops::square(root, f(root, x, a, {.keep_dims = keep_dims}));
  check_gradient(root, x, y, x_value, opts);
}

void check_reduction_everywhere(const reduce_fn& f) {
  const std::vector<std::vector<int32_t>> axis_sets = {{0}, {1}, {2}, {-1}, {0, 2}, {2, 0, 1}, {}};
  for (const auto& axes : axis_sets) {
    std::string listed;
    for (int32_t a : axes) listed += std::to_string(a) + " ";
    INFO("axes { ", listed, "}");
    for (bool keep_dims : {false, true}) {
      check_reduction(f, axes, keep_dims, partial_shape{2, 3, 4}, true);
      check_reduction(f, axes, keep_dims, partial_shape{-1, 3, -1}, true);
      check_reduction(f, axes, keep_dims, partial_shape::unknown(), true);
      check_reduction(f, axes, keep_dims, partial_shape::unknown(), false);
    }
  }
}

std::vector<tensor> run(const scope& root, const session::feed_list& feeds,
                        const std::vector<output>& fetches) {
  session sess(root);
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return *out;
}

}  // namespace

TEST_CASE("Sum") {
  check_reduction_everywhere([](const scope& s, const output& x, const output& a,
                                const ops::reduce_attrs& at) { return ops::sum(s, x, a, at); });
}

TEST_CASE("Mean") {
  check_reduction_everywhere([](const scope& s, const output& x, const output& a,
                                const ops::reduce_attrs& at) { return ops::mean(s, x, a, at); });
}

TEST_CASE("Max") {
  check_reduction_everywhere([](const scope& s, const output& x, const output& a,
                                const ops::reduce_attrs& at) { return ops::max(s, x, a, at); });
}

TEST_CASE("Min") {
  check_reduction_everywhere([](const scope& s, const output& x, const output& a,
                                const ops::reduce_attrs& at) { return ops::min(s, x, a, at); });
}

TEST_CASE("a scalar axis and a scalar input") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64);
  auto y = ops::square(root, ops::sum(root, x, ops::constant(root, int64_t{1})));
  check_gradient(root, x, y, x234());
  auto root2 = scope::new_root();
  auto s = ops::placeholder(root2, dtype::float64, {.shape = partial_shape(tensor_shape{})});
  check_gradient(root2, s, ops::square(root2, ops::mean(root2, s, {})),
                 tensor::scalar<double>(1.5));
}

// Hand-checked: Sum spreads dy over its inputs, Mean divides it by the count, Max and Min
// split it evenly among tied extremes.
TEST_CASE("reduction gradient values, ties included") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3}});
  auto dy = ops::constant(root, std::vector<float>{6, 12}, {2});
  auto grad = [&](const output& y) {
    std::vector<output> g;
    REQUIRE(add_symbolic_gradients(root, {y}, {x}, {dy}, &g).ok());
    return g[0];
  };
  auto gsum = grad(ops::sum(root, x, {1}));
  auto gmean = grad(ops::mean(root, x, {1}));
  auto gmax = grad(ops::max(root, x, {1}));
  auto gmin = grad(ops::min(root, x, {1}));
  auto out = run(root, {{x, tensor::from_vector<float>({1, 3, 3, 2, 2, 2}, {2, 3})}},
                 {gsum, gmean, gmax, gmin});
  check_tensor(out[0], tensor_shape{2, 3}, std::vector<float>{6, 6, 6, 12, 12, 12});
  check_tensor(out[1], tensor_shape{2, 3}, std::vector<float>{2, 2, 2, 4, 4, 4});
  check_tensor(out[2], tensor_shape{2, 3}, std::vector<float>{0, 3, 3, 4, 4, 4});
  check_tensor(out[3], tensor_shape{2, 3}, std::vector<float>{6, 0, 0, 4, 4, 4});
}

TEST_CASE("Mean of an empty input has an empty gradient") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32);
  auto y = ops::mean(root, x, {0});
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &g).ok());
  auto out = run(root, {{x, tensor::from_vector<float>({}, {0, 3})}}, g);
  CHECK(out[0].shape() == tensor_shape{0, 3});
}

TEST_CASE("Prod") {
  // x234 holds one zero (element 22), so some slices have a zero and most do not.
  check_reduction_everywhere([](const scope& s, const output& x, const output& a,
                                const ops::reduce_attrs& at) { return ops::prod(s, x, a, at); });
}

// Slices with no zero, one zero and two zeros: the gradient is the product of the others
// in the slice, with no division, so it is exact at zeros.
TEST_CASE("Prod with zeros in the reduced slices") {
  // Rows of a [4, 3] input; reduced along 1 each row is a slice; along 0 each column.
  const tensor x = tensor::from_vector<double>({2, 0, 3, 0, 5, 4, 0, 5, 0, 1.5, -2, 0.5}, {4, 3});
  for (const std::vector<int32_t>& axes :
       std::vector<std::vector<int32_t>>{{1}, {0}, {0, 1}, {-1, 0}}) {
    for (bool constant_axes : {true, false}) {
      CAPTURE(constant_axes);
      auto root = scope::new_root();
      auto p = ops::placeholder(root, dtype::float64);
      testing::gradient_check_options opts;
      output a;
      if (constant_axes) {
        a = ops::constant(root, axes_tensor(axes));
      } else {
        a = ops::placeholder(root, dtype::int32);
        opts.extra_feeds.emplace_back(a, axes_tensor(axes));
      }
      check_gradient(root, p, ops::square(root, ops::prod(root, p, a)), x, opts);
    }
  }
  // Hand-checked, dy = (1, 2, 3, 4) along rows: [2, 0, 3] -> [0, 6, 0]; [0, 5, 4] ->
  // [20, 0, 0] * 2; [0, 5, 0] (two zeros) -> zeros; [1.5, -2, 0.5] -> [-1, 0.75, -3] * 4.
  auto root = scope::new_root();
  auto p = ops::placeholder(root, dtype::float32, {.shape = partial_shape{4, 3}});
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::prod(root, p, {1})}, {p},
                                 {ops::constant(root, std::vector<float>{1, 2, 3, 4}, {4})}, &g)
              .ok());
  check_tensor(
      run(root,
          {{p, tensor::from_vector<float>({2, 0, 3, 0, 5, 4, 0, 5, 0, 1.5, -2, 0.5}, {4, 3})}},
          g)[0],
      tensor_shape{4, 3}, std::vector<float>{0, 6, 0, 40, 0, 0, 0, 0, 0, -4, 3, -12});
}

TEST_CASE("Prod of a scalar and of an empty slice") {
  auto root = scope::new_root();
  auto s = ops::placeholder(root, dtype::float64);
  check_gradient(root, s, ops::square(root, ops::prod(root, s, std::vector<int>{})),
                 tensor::scalar<double>(1.5));
  auto e = ops::placeholder(root, dtype::float32);
  std::vector<output> g;
  REQUIRE(add_symbolic_gradients(root, {ops::prod(root, e, {0})}, {e}, &g).ok());
  auto out = run(root, {{e, tensor::from_vector<float>({}, {0, 3})}}, g);
  CHECK(out[0].shape() == tensor_shape{0, 3});
}
