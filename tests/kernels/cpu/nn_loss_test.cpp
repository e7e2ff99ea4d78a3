// SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits and L2Loss kernels.
#include <cmath>
#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

std::vector<tensor> run(const std::string& op, const std::vector<tensor>& inputs) {
  auto r = run_kernel(op, inputs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

// Three rows of four logits whose softmax is known exactly:
//   log [1, 2, 3, 4]             -> [0.1, 0.2, 0.3, 0.4]
//   [0, 0, 0, 0]                 -> [0.25, 0.25, 0.25, 0.25]
//   1000 + log [1, 3, 1, 1]      -> [1/6, 1/2, 1/6, 1/6]  (would overflow a naive exp)
// In float, 1000 + log 3 is only exact to 2e-5, hence the looser float tolerance.
constexpr double float_tol = 1e-4;

template <class T>
tensor features() {
  const double l2 = std::log(2.0), l3 = std::log(3.0), l4 = std::log(4.0);
  return tensor::from_vector<T>(
      std::vector<T>{0, T(l2), T(l3), T(l4), 0, 0, 0, 0, 1000, T(1000 + l3), 1000, 1000}, {3, 4});
}

}  // namespace

TEST_CASE("SoftmaxCrossEntropyWithLogits: loss per row and softmax minus labels") {
  const tensor labels = tensor::from_vector<float>(
      {0, 0, 0, 1, 0.25f, 0.25f, 0.25f, 0.25f, 0.5f, 0.5f, 0, 0}, {3, 4});
  const auto out = run("SoftmaxCrossEntropyWithLogits", {features<float>(), labels});
  REQUIRE(out.size() == 2);
  // -log 0.4; log 4; -(log(1/6) + log(1/2)) / 2 = log(12) / 2.
  check_tensor(out[0], {3},
               std::vector<float>{0.91629073f, 1.38629436f, 0.5f * std::log(12.0f)}, float_tol);
  check_tensor(out[1], {3, 4},
               std::vector<float>{0.1f, 0.2f, 0.3f, -0.6f, 0, 0, 0, 0, 1.0f / 6 - 0.5f, 0,
                                  1.0f / 6, 1.0f / 6},
               float_tol);
  const tensor labels64 = tensor::from_vector<double>({1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}, {3, 4});
  const auto d = run("SoftmaxCrossEntropyWithLogits", {features<double>(), labels64});
  check_tensor(d[0], {3}, std::vector<double>{std::log(10.0), std::log(4.0), std::log(2.0)}, 1e-12);
  check_tensor(d[1], {3, 4},
               std::vector<double>{0.1 - 1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25 - 1, 1.0 / 6,
                                   0.5 - 1, 1.0 / 6, 1.0 / 6},
               1e-12);
}

TEST_CASE("SoftmaxCrossEntropyWithLogits broadcasts labels and features (TF >= 1.14)") {
  // labels [1,4] for each of the three rows of features: loss [3], backprop [3,4].
  const tensor one_row = tensor::from_vector<float>({0, 0, 0, 1}, {1, 4});
  const auto out = run("SoftmaxCrossEntropyWithLogits", {features<float>(), one_row});
  // -log p[3] per row: -log 0.4, -log 0.25, -log(1/6).
  check_tensor(out[0], {3}, std::vector<float>{0.91629073f, std::log(4.0f), std::log(6.0f)},
               float_tol);
  check_tensor(out[1], {3, 4},
               std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f - 1, 0.25f, 0.25f, 0.25f, 0.25f - 1,
                                  1.0f / 6, 0.5f, 1.0f / 6, 1.0f / 6 - 1},
               float_tol);
  // A rank-1 label row broadcasts the same way.
  const auto vec = run("SoftmaxCrossEntropyWithLogits",
                       {features<float>(), tensor::from_vector<float>({0, 0, 0, 1})});
  check_tensor(vec[0], out[0], float_tol);
  // Features [1,4] against labels [2,4]: the one row of logits for both label rows.
  const double l2 = std::log(2.0), l3 = std::log(3.0), l4 = std::log(4.0);
  const tensor logits = tensor::from_vector<double>({0, l2, l3, l4}, {1, 4});
  const auto d = run("SoftmaxCrossEntropyWithLogits",
                     {logits, tensor::from_vector<double>({1, 0, 0, 0, 0, 0.5, 0.5, 0}, {2, 4})});
  check_tensor(d[0], {2}, std::vector<double>{std::log(10.0), -0.5 * std::log(0.06)}, 1e-12);
  check_tensor(d[1], {2, 4},
               std::vector<double>{0.1 - 1, 0.2, 0.3, 0.4, 0.1, 0.2 - 0.5, 0.3 - 0.5, 0.4},
               1e-12);
}

TEST_CASE("a masked (-inf) logit with a zero label costs nothing instead of NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  const auto out = run("SoftmaxCrossEntropyWithLogits",
                       {tensor::from_vector<float>({0, -inf, 0, 0}, {1, 4}),
                        tensor::from_vector<float>({1, 0, 0, 0}, {1, 4})});
  check_tensor(out[0], {1}, std::vector<float>{std::log(3.0f)});
  check_tensor(out[1], {1, 4}, std::vector<float>{1.0f / 3 - 1, 0, 1.0f / 3, 1.0f / 3});
  CHECK(out[1].data<float>()[1] == 0.0f);
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits with int32 and int64 labels") {
  const auto out = run("SparseSoftmaxCrossEntropyWithLogits",
                       {features<float>(), tensor::from_vector<int32_t>({3, 0, 1})});
  REQUIRE(out.size() == 2);
  check_tensor(out[0], {3}, std::vector<float>{0.91629073f, 1.38629436f, std::log(2.0f)},
               float_tol);
  check_tensor(out[1], {3, 4},
               std::vector<float>{0.1f, 0.2f, 0.3f, -0.6f, -0.75f, 0.25f, 0.25f, 0.25f, 1.0f / 6,
                                  -0.5f, 1.0f / 6, 1.0f / 6},
               float_tol);
  const auto d = run("SparseSoftmaxCrossEntropyWithLogits",
                     {features<double>(), tensor::from_vector<int64_t>({0, 3, 2})});
  check_tensor(d[0], {3}, std::vector<double>{std::log(10.0), std::log(4.0), std::log(6.0)},
               1e-12);
  check_tensor(d[1], {3, 4},
               std::vector<double>{0.1 - 1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25 - 1, 1.0 / 6,
                                   0.5, 1.0 / 6 - 1, 1.0 / 6},
               1e-12);
}

TEST_CASE("a sparse label out of range is refused, naming its index and value") {
  const tensor f = features<float>();
  check_error(run_kernel("SparseSoftmaxCrossEntropyWithLogits",
                         {f, tensor::from_vector<int32_t>({0, 4, 1})}),
              "labels[1] = 4 is outside the valid range [0, 4) of classes for features of shape "
              "[3,4]");
  check_error(run_kernel("SparseSoftmaxCrossEntropyWithLogits",
                         {f, tensor::from_vector<int64_t>({0, 1, -1})}),
              "labels[2] = -1 is outside the valid range [0, 4)");
  // No class at all: every label is out of range.
  check_error(run_kernel("SparseSoftmaxCrossEntropyWithLogits",
                         {tensor(dtype::float32, {2, 0}), tensor::from_vector<int32_t>({0, 0})}),
              "labels[0] = 0 is outside the valid range [0, 0)");
}

TEST_CASE("cross-entropy shapes are checked at graph construction and by the kernels") {
  const tensor f = features<float>();
  check_error(run_kernel("SoftmaxCrossEntropyWithLogits", {f, tensor(dtype::float32, {3, 5})}),
              "features of shape [3,4] and labels of shape [3,5] must be broadcastable");
  check_error(
      run_kernel_unchecked("SoftmaxCrossEntropyWithLogits", {f, tensor(dtype::float32, {3, 5})}),
      "incompatible shapes for broadcasting: [3,4] and [3,5]");
  check_error(run_kernel("SoftmaxCrossEntropyWithLogits",
                         {tensor(dtype::float32, {4}), tensor(dtype::float32, {4})}),
              "features of shape [4] and labels of shape [4] must be matrices or broadcast to one, "
              "got shape [4]");
  check_error(run_kernel_unchecked("SoftmaxCrossEntropyWithLogits",
                                   {tensor(dtype::float32, {4}), tensor(dtype::float32, {4})}),
              "must be matrices or broadcast to one, got shape [4]");
  check_error(run_kernel("SoftmaxCrossEntropyWithLogits",
                         {tensor(dtype::float32, {2, 3, 4}), tensor(dtype::float32, {3, 4})}),
              "must be matrices or broadcast to one, got shape [2,3,4]");
  check_error(run_kernel("SparseSoftmaxCrossEntropyWithLogits",
                         {f, tensor::from_vector<int32_t>({0, 1})}),
              "labels of shape [2] must have one entry per row of features of shape [3,4]");
  check_error(run_kernel_unchecked("SparseSoftmaxCrossEntropyWithLogits",
                                   {f, tensor::from_vector<int32_t>({0, 1})}),
              "labels of shape [2] must be a vector with one entry per row of features of shape "
              "[3,4]");
  check_error(run_kernel("SparseSoftmaxCrossEntropyWithLogits",
                         {f, tensor::from_vector<int32_t>({0, 1, 2}, {3, 1})}),
              "labels must have rank 1, got shape [3,1]");
}

TEST_CASE("cross-entropy of an empty batch, and of rows without classes") {
  const auto empty = run("SoftmaxCrossEntropyWithLogits",
                         {tensor(dtype::float32, {0, 4}), tensor(dtype::float32, {0, 4})});
  check_tensor(empty[0], {0}, std::vector<float>{});
  check_tensor(empty[1], {0, 4}, std::vector<float>{});
  const auto sparse = run("SparseSoftmaxCrossEntropyWithLogits",
                          {tensor(dtype::float64, {0, 4}), tensor(dtype::int64, {0})});
  check_tensor(sparse[0], {0}, std::vector<double>{});
  const auto no_classes = run("SoftmaxCrossEntropyWithLogits",
                              {tensor(dtype::float32, {2, 0}), tensor(dtype::float32, {2, 0})});
  check_tensor(no_classes[0], {2}, std::vector<float>{0, 0});
  check_tensor(no_classes[1], {2, 0}, std::vector<float>{});
}

TEST_CASE("a large batch over the intra-op pool") {
  // 4000 rows of 16: row r has log 3 at column r % 16 and zeros elsewhere (softmax 3/18 there,
  // 1/18 elsewhere); its label is column (r + 1) % 16, so every loss is log 18.
  const int64_t rows = 4000, cols = 16;
  std::vector<float> x(rows * cols, 0.0f);
  std::vector<int32_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r) {
    x[r * cols + r % cols] = std::log(3.0f);
    labels[r] = static_cast<int32_t>((r + 1) % cols);
  }
  const auto out = run("SparseSoftmaxCrossEntropyWithLogits",
                       {tensor::from_vector<float>(x, {rows, cols}),
                        tensor::from_vector<int32_t>(labels)});
  for (int64_t r = 0; r < rows; ++r) {
    if (std::abs(out[0].data<float>()[r] - std::log(18.0f)) > 1e-5f) FAIL("loss of row ", r);
    for (int64_t c = 0; c < cols; ++c) {
      const float p = c == r % cols ? 3.0f / 18 : 1.0f / 18;
      const float expected = c == labels[r] ? p - 1 : p;
      if (std::abs(out[1].data<float>()[r * cols + c] - expected) > 1e-6f)
        FAIL("backprop of row ", r, " column ", c);
    }
  }
}

TEST_CASE("L2Loss is half the sum of squares") {
  check_tensor(run("L2Loss", {tensor::from_vector<float>({1, 2, 3})})[0], {},
               std::vector<float>{7});
  check_tensor(run("L2Loss", {tensor::from_vector<double>({1, -2, 3, 0.5}, {2, 2})})[0], {},
               std::vector<double>{7.125}, 1e-12);
  check_tensor(run("L2Loss", {tensor::scalar<float>(4)})[0], {}, std::vector<float>{8});
  check_tensor(run("L2Loss", {tensor(dtype::float32, {0, 5})})[0], {}, std::vector<float>{0});
  // 100000 elements (over the pool): 0.5 * 100000 * 0.5^2.
  check_tensor(run("L2Loss", {tensor::filled<double>({100, 1000}, 0.5)})[0], {},
               std::vector<double>{12500}, 1e-12);
  check_error(run_kernel("L2Loss", {tensor::from_vector<int32_t>({1})}), "int32");
}
