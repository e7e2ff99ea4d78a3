// Layers and initializers: variable and output shapes, names, hand-computed outputs, the
// Glorot limits, dropout's expectation, and a dense layer trained by an optimizer.
#include <doctest/doctest.h>

#include <cmath>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/initializers.hpp"
#include "graph/client/train/layers.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

std::vector<tensor> run_ok(session& sess, const std::vector<output>& fetches,
                           const session::feed_list& feeds = {}) {
  auto out = sess.run(feeds, fetches);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return std::move(out).value();
}

void init_ok(session& sess, const scope& root, const train::variable_set& vars) {
  const status st = sess.run_targets({train::global_variables_initializer(root, vars)});
  REQUIRE_MESSAGE(st.ok(), st.to_string());
}

// An initializer giving exactly `values` (which must match the requested shape).
train::initializer exactly(std::vector<float> values) {
  return [values](const scope& s, const tensor_shape& shape, dtype) {
    return ops::constant(s, tensor::from_vector<float>(values, shape));
  };
}

}  // namespace

TEST_CASE("fans and Glorot limits as Keras computes them") {
  auto f = train::compute_fans({784, 100});
  CHECK(f.fan_in == 784);
  CHECK(f.fan_out == 100);
  f = train::compute_fans({3, 3, 16, 32});  // receptive field 9
  CHECK(f.fan_in == 144);
  CHECK(f.fan_out == 288);
  f = train::compute_fans({7});
  CHECK(f.fan_in == 7);
  CHECK(f.fan_out == 7);
  f = train::compute_fans({});
  CHECK(f.fan_in == 1);
  CHECK(f.fan_out == 1);
  CHECK(train::glorot_uniform_limit({784, 100}) == doctest::Approx(std::sqrt(6.0 / 884)));
  CHECK(train::glorot_uniform_limit({3, 3, 16, 32}) == doctest::Approx(std::sqrt(6.0 / 432)));
  // Fans summing below 2 are clamped: sqrt(3 / max(1, 0.5)).
  CHECK(train::glorot_uniform_limit({1, 0}) == doctest::Approx(std::sqrt(3.0)));
}

TEST_CASE("glorot_uniform values lie within the limit, centred, spread uniformly") {
  auto root = scope::new_root();
  const tensor_shape shape{300, 500};
  const output w = train::glorot_uniform(root, shape, dtype::float32, 5);
  const output w64 = train::glorot_uniform(root, {4, 6}, dtype::float64, 5);
  REQUIRE(root.ok());
  CHECK(root.shape_of(w) == partial_shape{300, 500});
  session sess(root);
  auto out = run_ok(sess, {w, w64});
  const double limit = std::sqrt(6.0 / 800);
  const float* p = out[0].data<float>();
  double sum = 0, sum_sq = 0, lo = 1, hi = -1;
  const int64_t n = out[0].num_elements();
  for (int64_t i = 0; i < n; ++i) {
    sum += p[i];
    sum_sq += double(p[i]) * p[i];
    lo = std::min(lo, double(p[i]));
    hi = std::max(hi, double(p[i]));
  }
  CHECK(lo >= -limit);
  CHECK(hi < limit);
  // 150000 draws: the extremes come within 0.1% of the limit, the mean within a few standard
  // errors (limit / sqrt(3 n) = 1.3e-4) of 0, the variance near limit^2 / 3.
  CHECK(lo < -0.999 * limit);
  CHECK(hi > 0.999 * limit);
  CHECK(std::abs(sum / double(n)) < 1e-3);
  CHECK(sum_sq / double(n) == doctest::Approx(limit * limit / 3).epsilon(0.02));
  CHECK(out[1].type() == dtype::float64);
  const double limit64 = std::sqrt(0.6);
  for (double v : out[1].to_vector<double>()) CHECK(std::abs(v) <= limit64);

  train::glorot_uniform(root, {2, 2}, dtype::int32);
  check_error(root.get_status(), "glorot_uniform: dtype must be float32 or float64, got int32");
}

TEST_CASE("zeros, ones and constant fills") {
  auto root = scope::new_root();
  const output z = train::zeros(root, {2, 3}, dtype::float64);
  const output o = train::ones(root, {}, dtype::int32);
  const output c = train::constant_fill(root, {0, 4}, dtype::float32, 2.5);
  session sess(root);
  auto out = run_ok(sess, {z, o, c});
  check_tensor(out[0], {2, 3}, std::vector<double>(6, 0.0));
  check_tensor(out[1], tensor::scalar<int32_t>(1));
  CHECK(out[2].shape() == tensor_shape{0, 4});
}

TEST_CASE("dense: variable shapes and names, output against a hand computation") {
  auto root = scope::new_root();
  const output x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                                    {.shape = partial_shape{-1, 3}});
  // kernel [[1, 0], [0, 1], [1, 1]], bias [0.5, -2]
  auto layer = layers::dense(root, x, 2,
                             {.activation = ops::relu,
                              .kernel_initializer = exactly({1, 0, 0, 1, 1, 1}),
                              .bias_initializer = exactly({0.5f, -2})});
  auto linear = layers::dense(root, x, 5, {.use_bias = false});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(layer.kernel.name() == "dense/kernel");
  CHECK(layer.bias.name() == "dense/bias");
  CHECK(linear.kernel.name() == "dense_1/kernel");
  CHECK_FALSE(linear.bias.valid());
  CHECK(layer.variables().size() == 2);
  CHECK(linear.variables().size() == 1);
  CHECK(root.shape_of(layer.kernel) == partial_shape{3, 2});
  CHECK(root.shape_of(layer.bias) == partial_shape{2});
  CHECK(root.shape_of(linear.kernel) == partial_shape{3, 5});
  CHECK(root.shape_of(layer) == partial_shape{-1, 2});
  CHECK(root.shape_of(linear) == partial_shape{-1, 5});

  train::variable_set vars(layer.variables());
  vars.add(linear.variables());
  session sess(root);
  init_ok(sess, root, vars);
  // Row [1, 2, 3]: [1 + 3, 2 + 3] + bias = [4.5, 3]; row [-1, 0, 1]: [0, 1] + bias = [0.5, -1],
  // relu: [0.5, 0].
  auto out = run_ok(sess, {layer, linear},
                    {{x, tensor::from_vector<float>({1, 2, 3, -1, 0, 1}, {2, 3})}});
  check_tensor(out[0], {2, 2}, std::vector<float>{4.5f, 3, 0.5f, 0});
  CHECK(out[1].shape() == tensor_shape{2, 5});
  // The default kernel is Glorot-uniform: |w| <= sqrt(6 / (3 + 5)).
  for (float v : run_ok(sess, {linear.kernel})[0].to_vector<float>())
    CHECK(std::abs(v) <= std::sqrt(6.0 / 8));
}

TEST_CASE("dense refuses inputs it cannot size a kernel for") {
  {
    auto root = scope::new_root();
    layers::dense(root, ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1}}), 3);
    check_error(root.get_status(), "dense layer 'dense': the input 'Placeholder' has shape [2,?]; "
                                   "its last dimension must be known to size the kernel");
  }
  {
    auto root = scope::new_root();
    layers::dense(root, ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3, 4}}), 3);
    check_error(root.get_status(), "has shape [2,3,4]; rank 2 expected");
  }
  {
    auto root = scope::new_root();
    layers::dense(root, ops::placeholder(root, dtype::int32, {.shape = partial_shape{2, 3}}), 3);
    check_error(root.get_status(), "is int32; float32 or float64 expected");
  }
  {
    auto root = scope::new_root();
    layers::dense(root, ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 3}}), 0);
    check_error(root.get_status(), "units must be positive, got 0");
  }
}

TEST_CASE("conv2d: kernel [kh, kw, in, filters], output shapes for valid and same") {
  auto root = scope::new_root();
  const output x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                                    {.shape = partial_shape{-1, 8, 8, 2}});
  auto valid = layers::conv2d(root, x, 4, {3, 3});
  auto same = layers::conv2d(root, x, 6, {3, 3},
                             {.strides = {2, 2}, .padding = "SAME", .activation = ops::relu});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(valid.kernel.name() == "conv2d/kernel");
  CHECK(same.kernel.name() == "conv2d_1/kernel");
  CHECK(root.shape_of(valid.kernel) == partial_shape{3, 3, 2, 4});
  CHECK(root.shape_of(valid.bias) == partial_shape{4});
  CHECK(root.shape_of(valid) == partial_shape{-1, 6, 6, 4});
  CHECK(root.shape_of(same) == partial_shape{-1, 4, 4, 6});

  train::variable_set vars(valid.variables());
  vars.add(same.variables());
  session sess(root);
  init_ok(sess, root, vars);
  auto out = run_ok(sess, {valid, same, valid.kernel},
                    {{x, tensor::filled<float>({3, 8, 8, 2}, 1.0f)}});
  CHECK(out[0].shape() == tensor_shape{3, 6, 6, 4});
  CHECK(out[1].shape() == tensor_shape{3, 4, 4, 6});
  // Kernel [3, 3, 2, 4]: fans 18 and 36.
  for (float v : out[2].to_vector<float>()) CHECK(std::abs(v) <= std::sqrt(6.0 / 54));
}

TEST_CASE("conv2d against a hand computation") {
  auto root = scope::new_root();
  // x: one 3x3 image, one channel, 1..9.
  const output x = ops::constant(root, tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9},
                                                                  {1, 3, 3, 1}));
  // A 2x2 kernel of ones: each output sums a 2x2 window; bias 10.
  auto layer = layers::conv2d(root, x, 1, {2, 2},
                              {.kernel_initializer = train::ones_initializer(),
                               .bias_initializer = train::constant_initializer(10)});
  REQUIRE(root.ok());
  session sess(root);
  init_ok(sess, root, layer.variables());
  // Windows: 1+2+4+5 = 12, 2+3+5+6 = 16, 4+5+7+8 = 24, 5+6+8+9 = 28.
  check_tensor(run_ok(sess, {layer})[0], {1, 2, 2, 1}, std::vector<float>{22, 26, 34, 38});
}

TEST_CASE("conv2d refuses bad arguments") {
  auto root = scope::new_root();
  const output x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{1, 4, 4, 1}});
  layers::conv2d(root, x, 2, {3, 3}, {.padding = "full"});
  check_error(root.get_status(), "padding (\"full\") \"same\" or \"valid\"");
  auto root2 = scope::new_root();
  layers::conv2d(root2, ops::placeholder(root2, dtype::float32, {.shape = partial_shape{4, 4, 1}}),
                 2, {3, 3});
  check_error(root2.get_status(), "conv2d layer 'conv2d': the input 'Placeholder' has shape "
                                  "[4,4,1]; rank 4 expected");
}

TEST_CASE("max_pooling2d: window maxima and shapes") {
  auto root = scope::new_root();
  // 4x4 image 0..15, 2x2 windows with stride 2.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = float(i);
  const output x = ops::constant(root, tensor::from_vector<float>(v, {1, 4, 4, 1}));
  const output p = layers::max_pooling2d(root, x, {2, 2}, {2, 2});
  const output q = layers::max_pooling2d(root, x, {3, 3}, {2, 2}, {.padding = "same"});
  REQUIRE(root.ok());
  CHECK(p.node == "max_pooling2d");
  CHECK(root.shape_of(p) == partial_shape{1, 2, 2, 1});
  CHECK(root.shape_of(q) == partial_shape{1, 2, 2, 1});
  session sess(root);
  auto out = run_ok(sess, {p, q});
  check_tensor(out[0], {1, 2, 2, 1}, std::vector<float>{5, 7, 13, 15});
  // SAME with 3x3 windows at stride 2: pad_total = 1, all after: windows rows/cols {0,1,2} and
  // {2,3}; maxima at (2,2), (2,3), (3,2), (3,3).
  check_tensor(out[1], {1, 2, 2, 1}, std::vector<float>{10, 11, 14, 15});
  layers::max_pooling2d(root, x, {0, 2}, {2, 2});
  check_error(root.get_status(), "pool_size (0x2) and strides (2x2) must be positive");
}

TEST_CASE("flatten keeps the batch and multiplies the rest") {
  auto root = scope::new_root();
  const output x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                                    {.shape = partial_shape{-1, 2, 3, 4}});
  const output y = ops::placeholder(root.with_op_name("y"), dtype::float32,
                                    {.shape = partial_shape{-1, -1, 3}});
  const output v = ops::placeholder(root.with_op_name("v"), dtype::int32,
                                    {.shape = partial_shape{5}});
  const output fx = layers::flatten(root, x);
  const output fy = layers::flatten(root, y);
  const output fv = layers::flatten(root, v);
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(root.shape_of(fx) == partial_shape{-1, 24});
  CHECK(root.shape_of(fv) == partial_shape{5, 1});
  session sess(root);
  auto out = run_ok(sess, {fx, fy, fv},
                    {{x, testing::iota<float>({2, 2, 3, 4})},
                     {y, testing::iota<float>({2, 2, 3})},
                     {v, tensor::from_vector<int32_t>({1, 2, 3, 4, 5})}});
  check_tensor(out[0], testing::iota<float>({2, 24}));
  check_tensor(out[1], testing::iota<float>({2, 6}));
  check_tensor(out[2], {5, 1}, std::vector<int32_t>{1, 2, 3, 4, 5});

  layers::flatten(root, ops::placeholder(root, dtype::float32));
  check_error(root.get_status(), "flatten layer 'flatten': the input 'Placeholder' has shape "
                                 "<unknown>; a known rank of at least 1 (the batch) is needed");
}

TEST_CASE("dropout keeps the expectation while training and is the identity otherwise") {
  auto root = scope::new_root();
  const int64_t n = 100000;
  const output x = ops::constant(root, tensor::filled<float>({n}, 1.0f));
  const output training = ops::placeholder(root.with_op_name("training"), dtype::boolean,
                                           {.shape = partial_shape(tensor_shape{})});
  const output d = layers::dropout(root, x, 0.3, training, {.seed = 3});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  CHECK(root.shape_of(d) == partial_shape{n});
  session sess(root);

  // Every element is 0 or `kept`; counts the zeros and averages.
  auto count = [&](const tensor& t, float kept, int64_t* zeros, double* mean) {
    *zeros = 0;
    int64_t others = 0;
    double sum = 0;
    for (float v : t.to_vector<float>()) {
      if (v == 0) ++*zeros;
      else if (std::abs(v - kept) > 1e-6f * kept) ++others;
      sum += v;
    }
    CHECK(others == 0);
    *mean = sum / double(n);
  };
  int64_t zeros = 0;
  double mean = 0;
  auto first = run_ok(sess, {d}, {{training, tensor::scalar(true)}})[0];
  count(first, float(1 / 0.7), &zeros, &mean);
  // Each element is 0 with probability 0.3, else 1/0.7: mean 1, standard error 0.002.
  CHECK(mean == doctest::Approx(1.0).epsilon(0.01));
  CHECK(double(zeros) / double(n) == doctest::Approx(0.3).epsilon(0.05));
  // A fresh mask every step.
  auto second = run_ok(sess, {d}, {{training, tensor::scalar(true)}})[0];
  CHECK_FALSE(first.equals(second));

  auto eval = run_ok(sess, {d}, {{training, tensor::scalar(false)}})[0];
  check_tensor(eval, tensor::filled<float>({n}, 1.0f), 0);

  // Fixed when the graph is built: false is x itself, true always drops.
  CHECK(layers::dropout(root, x, 0.5, false).name() == x.name());
  const output always = layers::dropout(root, x, 0.5, true);
  CHECK(always.node != x.node);
  count(run_ok(sess, {always})[0], 2.0f, &zeros, &mean);
  CHECK(mean == doctest::Approx(1.0).epsilon(0.02));

  layers::dropout(root, x, 1.0, training);
  check_error(root.get_status(), "dropout layer 'dropout': rate must be in [0, 1), got 1");
}

TEST_CASE("the gradient through dropout is the mask over the keep probability") {
  auto root = scope::new_root();
  const output x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                                    {.shape = partial_shape{1000}});
  const output d = layers::dropout(root, x, 0.5, true);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {ops::sum(root, d, {0})}, {x}, &grads).ok());
  session sess(root);
  auto out = run_ok(sess, {d, grads[0]}, {{x, tensor::filled<float>({1000}, 1.0f)}});
  // With x = 1 the output is the scaled mask itself, which is also the gradient.
  check_tensor(out[1], out[0], 0);
}

TEST_CASE("a dense layer learns y = 2x + 1 with gradient descent") {
  auto root = scope::new_root();
  const output x = ops::constant(root, tensor::from_vector<float>({0, 1, 2, 3}, {4, 1}));
  const output y = ops::constant(root, tensor::from_vector<float>({1, 3, 5, 7}, {4, 1}));
  auto layer = layers::dense(root, x, 1, {.kernel_initializer = train::zeros_initializer()});
  const output loss = ops::mean(root, ops::square(root, ops::sub(root, layer, y)), {0, 1});
  train::gradient_descent_optimizer opt(0.1);
  auto train_op = opt.minimize(root, loss, layer.variables());
  REQUIRE_MESSAGE(train_op.ok(), train_op.get_status().to_string());
  session sess(root);
  init_ok(sess, root, layer.variables());
  for (int i = 0; i < 500; ++i) REQUIRE(sess.run_targets({*train_op}).ok());
  auto out = run_ok(sess, {layer.kernel, layer.bias});
  check_tensor(out[0], {1, 1}, std::vector<float>{2}, 1e-3);
  check_tensor(out[1], {1}, std::vector<float>{1}, 1e-3);
}
