// Gradients of the NN ops against central finite differences (float64), and StopGradient's
// absence of one.
#include <cmath>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::check_tensor;
using caflow::testing::ramp_weighted;

namespace {

output placeholder(const scope& s, partial_shape shape) {
  return ops::placeholder(s, dtype::float64, {.shape = std::move(shape)});
}

tensor values(const std::vector<double>& v, const tensor_shape& shape) {
  return tensor::from_vector<double>(v, shape);
}

// Away from 0, where Relu has its kink and finite differences straddle it.
const std::vector<double> k_mixed = {-1.5, -0.3, 0.2, 0.9, 2.0, -2.2, 0.7, -0.6, 1.1, 0.4,
                                     -0.9, 1.6};

// Rows of probabilities (each sums to 1), for dense labels.
tensor soft_labels() {
  return values({0.1, 0.2, 0.3, 0.4, 0, 0, 1, 0, 0.5, 0, 0, 0.5}, {3, 4});
}

}  // namespace

TEST_CASE("BiasAdd: the gradient flows to value as is and to bias summed over rows") {
  auto root = scope::new_root();
  auto x = placeholder(root, {-1, 2, 3});
  auto b = placeholder(root, {3});
  auto y = ops::bias_add(root, x, b);
  check_gradients(root, {x, b}, y, {values(k_mixed, {2, 2, 3}), values({0.5, -1, 2}, {3})});
}

TEST_CASE("Relu, Sigmoid and Tanh") {
  auto root = scope::new_root();
  auto x = placeholder(root, {-1, 4});
  const tensor xv = values(k_mixed, {3, 4});
  check_gradient(root, x, ops::relu(root, x), xv);
  check_gradient(root, x, ops::sigmoid(root, x), xv);
  check_gradient(root, x, ops::tanh(root, x), xv);
}

TEST_CASE("second order: ReluGrad, SigmoidGrad and TanhGrad in both inputs") {
  auto root = scope::new_root();
  auto a = placeholder(root, {2, 3});
  auto b = placeholder(root, {2, 3});
  const tensor av = values({0.3, -0.4, 0.9, 1.5, -2, 0.1}, {2, 3});
  const tensor bv = values({0.25, 0.6, 0.8, 0.1, 0.45, 0.95}, {2, 3});  // like sigmoid/tanh outputs
  const tensor features = values({-0.5, 0.7, 1.2, -0.1, 0.3, -2}, {2, 3});
  check_gradients(root, {a, b}, ops::relu_grad(root, a, b), {av, features});
  check_gradients(root, {a, b}, ops::sigmoid_grad(root, b, a), {av, bv});
  check_gradients(root, {a, b}, ops::tanh_grad(root, b, a), {av, bv});
}

TEST_CASE("Softmax and LogSoftmax along the last dimension") {
  auto root = scope::new_root();
  auto x = placeholder(root, {-1, 3});
  const tensor xv = values({0.5, -1, 2, 3, 3.5, -0.5}, {2, 3});
  check_gradient(root, x, ops::softmax(root, x), xv);
  check_gradient(root, x, ops::log_softmax(root, x), xv);
  auto x3 = placeholder(root, {2, 2, 3});
  check_gradient(root, x3, ops::softmax(root, x3), values(k_mixed, {2, 2, 3}));
  check_gradient(root, x3, ops::log_softmax(root, x3), values(k_mixed, {2, 2, 3}));
}

TEST_CASE("SoftmaxCrossEntropyWithLogits: through loss and through backprop") {
  auto root = scope::new_root();
  auto features = placeholder(root, {-1, 4});
  auto labels = placeholder(root, {-1, 4});
  auto xent = ops::softmax_cross_entropy_with_logits(root, features, labels);
  const tensor fv = values(k_mixed, {3, 4});
  check_gradient(root, features, xent.loss, fv, {.extra_feeds = {{labels, soft_labels()}}});
  check_gradient(root, features, xent.backprop, fv, {.extra_feeds = {{labels, soft_labels()}}});
  // Both at once: a gradient reaching loss and backprop.
  auto both = ops::add(root, ops::expand_dims(root, xent.loss, -1),
                       ops::mul(root, xent.backprop, xent.backprop));
  check_gradient(root, features, both, fv, {.extra_feeds = {{labels, soft_labels()}}});
}

TEST_CASE("SoftmaxCrossEntropyWithLogits: dense labels get -log_softmax(logits), as TF >= 1.5") {
  auto root = scope::new_root();
  auto features = placeholder(root, {-1, 4});
  auto labels = placeholder(root, {-1, 4});
  auto xent = ops::softmax_cross_entropy_with_logits(root, features, labels);
  check_gradient(root, labels, ops::mul(root, xent.loss, ops::constant(root, 1.5)), soft_labels(),
                 {.extra_feeds = {{features, values(k_mixed, {3, 4})}}});
}

TEST_CASE("SoftmaxCrossEntropyWithLogits with labels and features broadcast (TF >= 1.14)") {
  auto root = scope::new_root();
  // One row of labels for every row of features: both gradients keep their input's shape.
  auto features = placeholder(root, {-1, 4});
  auto labels = placeholder(root, {1, 4});
  auto xent = ops::softmax_cross_entropy_with_logits(root, features, labels);
  const tensor fv = values(k_mixed, {3, 4});
  const tensor lv = values({0.1, 0.2, 0.3, 0.4}, {1, 4});
  check_gradients(root, {features, labels}, ramp_weighted(root, xent.loss), {fv, lv});
  // Through backprop, as TensorFlow's gradient: to features only.
  check_gradient(root, features, ramp_weighted(root, xent.backprop), fv,
                 {.extra_feeds = {{labels, lv}}});
  // One row of logits for every row of labels.
  auto logits = placeholder(root, {1, 4});
  auto many = placeholder(root, {3, 4});
  auto other = ops::softmax_cross_entropy_with_logits(root, logits, many);
  check_gradients(root, {logits, many}, ramp_weighted(root, other.loss),
                  {values({0.5, -1, 2, 0.3}, {1, 4}), soft_labels()});
}

TEST_CASE("BiasAdd NCHW: the bias gradient sums all but dimension 1") {
  auto root = scope::new_root();
  auto x = placeholder(root, {2, 3, 2});
  auto b = placeholder(root, {3});
  auto y = ops::bias_add(root, x, b, {.data_format = "NCHW"});
  check_gradients(root, {x, b}, ramp_weighted(root, y),
                  {values(k_mixed, {2, 3, 2}), values({0.5, -1, 2}, {3})});
  auto x5 = placeholder(root, {1, 2, 1, 2, 3});
  auto b2 = placeholder(root, {2});
  check_gradients(root, {x5, b2},
                  ramp_weighted(root, ops::bias_add(root, x5, b2, {.data_format = "NCHW"})),
                  {values(k_mixed, {1, 2, 1, 2, 3}), values({0.25, -0.75}, {2})});
  auto dy = placeholder(root, {2, 3, 2});
  check_gradient(root, dy,
                 ramp_weighted(root, ops::bias_add_grad(root, dy, {.data_format = "NCHW"})),
                 values(k_mixed, {2, 3, 2}));
}

TEST_CASE("BiasAddGrad has a gradient: second order through bias_add") {
  auto root = scope::new_root();
  auto dy = placeholder(root, {2, 3});
  check_gradient(root, dy, ramp_weighted(root, ops::bias_add_grad(root, dy)),
                 values(k_mixed, {2, 3}));
  auto nhwc = placeholder(root, {1, 2, 2, 3});
  check_gradient(root, nhwc, ramp_weighted(root, ops::bias_add_grad(root, nhwc)),
                 values(k_mixed, {1, 2, 2, 3}));
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits: through loss and through backprop") {
  auto root = scope::new_root();
  auto features = placeholder(root, {-1, 4});
  auto labels = ops::placeholder(root, dtype::int64);
  auto xent = ops::sparse_softmax_cross_entropy_with_logits(root, features, labels);
  const tensor fv = values(k_mixed, {3, 4});
  const tensor lv = tensor::from_vector<int64_t>({3, 0, 2});
  check_gradient(root, features, xent.loss, fv, {.extra_feeds = {{labels, lv}}});
  check_gradient(root, features, xent.backprop, fv, {.extra_feeds = {{labels, lv}}});
}

TEST_CASE("L2Loss") {
  auto root = scope::new_root();
  auto x = placeholder(root, {});
  check_gradient(root, x, ops::l2_loss(root, x), values(k_mixed, {3, 4}));
}

TEST_CASE("StopGradient blocks the gradient; its input still flows the other way") {
  auto root = scope::new_root();
  auto x = placeholder(root, {3});
  // y = x * stop(x): dy/dx = stop(x) = x, not 2x.
  auto y = ops::mul(root, x, ops::stop_gradient(root, x));
  auto stopped = ops::stop_gradient(root, ops::mul(root, x, x));
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {y}, {x}, &grads).ok());
  std::vector<output> none;
  REQUIRE(add_symbolic_gradients(root, {stopped}, {x}, &none).ok());
  session sess(root);
  const tensor xv = values({1, -2, 3}, {3});
  auto out = sess.run({{x, xv}}, {grads[0], none[0]});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), {3}, std::vector<double>{1, -2, 3});
  check_tensor(out->at(1), {3}, std::vector<double>{0, 0, 0});
}

TEST_CASE("the gradient of the loss alone builds no softmax for the unused backprop output") {
  auto root = scope::new_root();
  auto features = placeholder(root, {-1, 10});
  auto labels = ops::placeholder(root, dtype::int32);
  auto xent = ops::sparse_softmax_cross_entropy_with_logits(root, features, labels);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {xent.loss}, {features}, &grads).ok());
  for (const node_def& n : root.to_graph_def().nodes) CHECK_MESSAGE(n.op != "Softmax", n.name);
}
