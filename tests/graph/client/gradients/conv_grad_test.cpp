// Gradients of Conv2D, its backprops and the pools against central finite differences
// (float64), and how the gradient graph learns the shapes it needs.
#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/conv_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;

namespace {

output placeholder(const scope& s, partial_shape shape) {
  return ops::placeholder(s, dtype::float64, {.shape = std::move(shape)});
}

// Distinct values spaced 0.1 apart in a scrambled order, so no pooling window holds a tie
// that a finite-difference step could flip.
tensor distinct(const tensor_shape& shape) {
  const int64_t n = shape.num_elements();
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % n) * 0.1 - 0.05 * n;
  return tensor::from_vector<double>(v, shape);
}

// Smooth, varied values in [-1, 1).
tensor varied(const tensor_shape& shape, int salt) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((static_cast<int>(i) * 7 + salt) % 17) / 8.5 - 1.0;
  return tensor::from_vector<double>(v, shape);
}

// The op of the node feeding input `i` of node `name`.
std::string input_op(const scope& s, const std::string& name, int i) {
  const auto n = s.find_node(name);
  REQUIRE(n.has_value());
  REQUIRE(static_cast<int>(n->inputs.size()) > i);
  std::string in = n->inputs[i];
  in = in.substr(0, in.find(':'));
  const auto producer = s.find_node(in);
  REQUIRE(producer.has_value());
  return producer->op;
}

}  // namespace

TEST_CASE("Conv2D gradients for input and filter, SAME and VALID, several strides") {
  struct config {
    std::vector<int> strides;
    const char* padding;
  };
  for (const config& c : {config{{1, 1, 1, 1}, "SAME"}, config{{1, 1, 1, 1}, "VALID"},
                          config{{1, 2, 2, 1}, "SAME"}, config{{1, 2, 1, 1}, "VALID"},
                          config{{1, 3, 2, 1}, "SAME"}}) {
    CAPTURE(c.padding);
    CAPTURE(c.strides[1]);
    auto root = scope::new_root();
    auto x = placeholder(root, {2, 5, 4, 2});
    auto w = placeholder(root, {3, 2, 2, 3});
    auto y = ops::conv2d(root, x, w, {.strides = c.strides, .padding = c.padding});
    check_gradients(root, {x, w}, y, {varied({2, 5, 4, 2}, 1), varied({3, 2, 2, 3}, 5)});
  }
}

TEST_CASE("Conv2D gradients with EXPLICIT padding and with a 1x1 filter") {
  auto root = scope::new_root();
  auto x = placeholder(root, {1, 4, 3, 2});
  auto w = placeholder(root, {2, 3, 2, 2});
  auto y = ops::conv2d(root, x, w,
                       {.padding = "EXPLICIT", .explicit_paddings = {0, 0, 2, 1, 0, 1, 0, 0}});
  check_gradients(root, {x, w}, y, {varied({1, 4, 3, 2}, 2), varied({2, 3, 2, 2}, 3)});

  auto root11 = scope::new_root();
  auto x11 = placeholder(root11, {2, 3, 3, 3});
  auto w11 = placeholder(root11, {1, 1, 3, 2});
  check_gradients(root11, {x11, w11}, ops::conv2d(root11, x11, w11),
                  {varied({2, 3, 3, 3}, 4), varied({1, 1, 3, 2}, 6)});
}

TEST_CASE("Conv2D's gradient reads shapes from Consts when known and from Shape otherwise") {
  auto root = scope::new_root();
  auto x = placeholder(root, {2, 6, 6, 1});
  auto w = placeholder(root, {3, 3, 1, 4});
  auto y = ops::conv2d(root, x, w);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x, w}, &grads).ok());
  CHECK(input_op(root, grads[0].node, 0) == "Const");
  CHECK(input_op(root, grads[1].node, 1) == "Const");
  CHECK(root.shape_of(grads[0]) == partial_shape{2, 6, 6, 1});
  CHECK(root.shape_of(grads[1]) == partial_shape{3, 3, 1, 4});

  // A batch of unknown size: the input's shape comes from a Shape node at run time.
  auto open = scope::new_root();
  auto xb = placeholder(open, {-1, 6, 6, 1});
  auto wb = placeholder(open, {3, 3, 1, 4});
  auto yb = ops::conv2d(open, xb, wb, {.strides = {1, 2, 2, 1}});
  std::vector<output> open_grads;
  REQUIRE(add_symbolic_gradients(open, {yb}, {xb, wb}, &open_grads).ok());
  CHECK(input_op(open, open_grads[0].node, 0) == "Shape");
  CHECK(open.shape_of(open_grads[0]) == partial_shape{-1, -1, -1, 1});
  CHECK(open.shape_of(open_grads[1]) == partial_shape{3, 3, 1, 4});
  check_gradients(open, {xb, wb}, yb, {varied({3, 6, 6, 1}, 7), varied({3, 3, 1, 4}, 8)});
}

TEST_CASE("Gradients of Conv2DBackpropInput and Conv2DBackpropFilter") {
  const ops::conv2d_attrs attrs{.strides = {1, 2, 2, 1}, .padding = "SAME"};
  auto root = scope::new_root();
  auto w = placeholder(root, {2, 3, 2, 3});
  auto g = placeholder(root, {2, 3, 2, 3});
  auto sizes = ops::constant(root, tensor::from_vector<int32_t>({2, 5, 4, 2}));
  auto dx = ops::conv2d_backprop_input(root, sizes, w, g, attrs);
  check_gradients(root, {w, g}, dx, {varied({2, 3, 2, 3}, 1), varied({2, 3, 2, 3}, 2)});

  auto froot = scope::new_root();
  auto x = placeholder(froot, {2, 5, 4, 2});
  auto fg = placeholder(froot, {2, 3, 2, 3});
  auto fsizes = ops::constant(froot, tensor::from_vector<int32_t>({2, 3, 2, 3}));
  auto dw = ops::conv2d_backprop_filter(froot, x, fsizes, fg, attrs);
  check_gradients(froot, {x, fg}, dw, {varied({2, 5, 4, 2}, 3), varied({2, 3, 2, 3}, 4)});
}

TEST_CASE("MaxPool's gradient, SAME and VALID, overlapping and disjoint windows") {
  struct config {
    int k, stride;
    const char* padding;
  };
  for (const config& c : {config{2, 2, "VALID"}, config{3, 2, "SAME"}, config{3, 1, "SAME"},
                          config{2, 1, "VALID"}}) {
    CAPTURE(c.k);
    CAPTURE(c.stride);
    CAPTURE(c.padding);
    auto root = scope::new_root();
    auto x = placeholder(root, {2, 5, 4, 3});
    auto y = ops::max_pool(root, x,
                           {.ksize = {1, c.k, c.k, 1}, .strides = {1, c.stride, c.stride, 1},
                            .padding = c.padding});
    check_gradient(root, x, y, distinct({2, 5, 4, 3}));
  }
}

TEST_CASE("MaxPoolGrad's and MaxPoolGradGrad's gradients in grad (second order through max pool)") {
  for (const char* padding : {"SAME", "VALID"}) {
    CAPTURE(padding);
    const ops::pool_attrs attrs{.ksize = {1, 3, 2, 1}, .strides = {1, 2, 1, 1},
                                .padding = padding};
    auto root = scope::new_root();
    auto x = ops::constant(root, distinct({2, 5, 4, 2}));
    auto y = ops::max_pool(root, x, attrs);
    const partial_shape pooled = root.shape_of(y);
    REQUIRE(pooled.fully_defined());
    auto g = placeholder(root, pooled);
    check_gradient(root, g, ops::max_pool_grad(root, x, y, g, attrs),
                   varied(pooled.to_shape(), 5));
    auto gg = placeholder(root, {2, 5, 4, 2});
    check_gradient(root, gg, ops::max_pool_grad_grad(root, x, y, gg, attrs),
                   varied({2, 5, 4, 2}, 6));
  }
}

TEST_CASE("MaxPoolGradGrad picks grad at each window's first maximum") {
  auto root = scope::new_root();
  // One 2x2 image, one channel, a 2x2 VALID window: the maximum 4 is at (1, 0).
  auto x = ops::constant(root, tensor::from_vector<float>({1, 3, 4, 2}, {1, 2, 2, 1}));
  const ops::pool_attrs attrs{.ksize = {1, 2, 2, 1}, .strides = {1, 1, 1, 1}, .padding = "VALID"};
  auto y = ops::max_pool(root, x, attrs);
  auto gg = ops::max_pool_grad_grad(
      root, x, y, ops::constant(root, tensor::from_vector<float>({10, 20, 30, 40}, {1, 2, 2, 1})),
      attrs);
  session sess(root);
  auto out = sess.run({gg});
  REQUIRE(out.ok());
  check_tensor(out->at(0), {1, 1, 1, 1}, std::vector<float>{30});
}

TEST_CASE("AvgPool's gradient, and AvgPoolGrad's") {
  for (const char* padding : {"SAME", "VALID"}) {
    CAPTURE(padding);
    const ops::pool_attrs attrs{.ksize = {1, 3, 2, 1}, .strides = {1, 2, 1, 1},
                                .padding = padding};
    auto root = scope::new_root();
    auto x = placeholder(root, {2, 5, 4, 2});
    check_gradient(root, x, ops::avg_pool(root, x, attrs), varied({2, 5, 4, 2}, 9));

    const partial_shape pooled = root.shape_of(ops::avg_pool(root, x, attrs));
    REQUIRE(pooled.fully_defined());
    auto g = placeholder(root, pooled);
    auto sizes = ops::constant(root, tensor::from_vector<int32_t>({2, 5, 4, 2}));
    check_gradient(root, g, ops::avg_pool_grad(root, sizes, g, attrs),
                   varied(pooled.to_shape(), 10));
  }
}

TEST_CASE("A small CNN: conv, max pool, conv, avg pool, differentiated end to end") {
  auto root = scope::new_root();
  auto x = placeholder(root, {2, 6, 6, 1});
  auto w1 = placeholder(root, {3, 3, 1, 2});
  auto w2 = placeholder(root, {2, 2, 2, 2});
  auto h = ops::max_pool(root, ops::conv2d(root, x, w1), {});
  auto y = ops::avg_pool(root, ops::conv2d(root, h, w2, {.padding = "VALID"}),
                         {.ksize = {1, 2, 2, 1}, .strides = {1, 1, 1, 1}, .padding = "SAME"});
  check_gradients(root, {x, w1, w2}, y,
                  {distinct({2, 6, 6, 1}), varied({3, 3, 1, 2}, 3), varied({2, 2, 2, 2}, 4)});
}
