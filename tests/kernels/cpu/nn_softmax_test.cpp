// Softmax and LogSoftmax kernels: values, numerical stability, masks, shapes and errors.
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

tensor run(const std::string& op, const tensor& x) {
  auto r = run_kernel(op, {x});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
std::vector<T> logs(const std::vector<double>& v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(std::log(x)));
  return out;
}

constexpr float k_inf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("Softmax of logarithms gives back the normalized numbers") {
  // softmax(log p) = p / sum(p): rows [1,2,3,4] and [1,1,1,1] (and one of 2,6).
  const tensor x = tensor::from_vector<float>(logs<float>({1, 2, 3, 4, 1, 1, 1, 1}), {2, 4});
  check_tensor(run("Softmax", x), {2, 4},
               std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 0.25f, 0.25f, 0.25f, 0.25f});
  const tensor d = tensor::from_vector<double>(logs<double>({2, 6}), {2});
  check_tensor(run("Softmax", d), {2}, std::vector<double>{0.25, 0.75}, 1e-12);
  // softmax([1, 2, 3]) = [1, e, e^2] / (1 + e + e^2).
  check_tensor(run("Softmax", tensor::from_vector<double>({1, 2, 3})), {3},
               std::vector<double>{0.09003057317038046, 0.24472847105479764,
                                   0.6652409557748219},
               1e-12);
}

TEST_CASE("LogSoftmax is the log of Softmax") {
  const tensor x = tensor::from_vector<float>(logs<float>({1, 2, 3, 4, 1, 1, 1, 1}), {2, 4});
  check_tensor(run("LogSoftmax", x), {2, 4}, logs<float>({0.1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25,
                                                          0.25}));
  check_tensor(run("LogSoftmax", tensor::from_vector<double>(logs<double>({2, 6}), {1, 2})),
               {1, 2}, logs<double>({0.25, 0.75}), 1e-12);
}

TEST_CASE("large and very negative logits neither overflow nor lose precision") {
  const float ln3 = std::log(3.0f);
  const tensor x = tensor::from_vector<float>({1000, 1000 + ln3, -1000, -1000, 88, 89}, {3, 2});
  const std::vector<float> p = {0.25f, 0.75f, 0.5f, 0.5f, 0.26894142f, 0.73105858f};
  check_tensor(run("Softmax", x), {3, 2}, p);
  // Next to a max of 1e8 (float spacing 8 there) the log-sum, log(1 + e^-8) = 3.35e-4, must
  // not be rounded away.
  const tensor big = tensor::from_vector<float>({1e8f, 1e8f - 8}, {1, 2});
  const float log_sum = static_cast<float>(std::log1p(std::exp(-8.0)));
  check_tensor(run("LogSoftmax", big), {1, 2}, std::vector<float>{-log_sum, -8 - log_sum}, 1e-6);
  check_tensor(run("LogSoftmax", x), {3, 2},
               std::vector<float>{std::log(0.25f), std::log(0.75f), std::log(0.5f),
                                  std::log(0.5f), std::log(0.26894142f), std::log(0.73105858f)},
               1e-4);  // 1000 + log 3 is only float-exact to 3e-5
}

TEST_CASE("masked (-inf) logits get exactly zero probability wherever they sit in the row") {
  // Seven entries: four in the vectorized part of the row, three in the scalar tail.
  const tensor x = tensor::from_vector<float>({-k_inf, 0, -k_inf, 0, -k_inf, 0, -k_inf}, {1, 7});
  const tensor p = run("Softmax", x);
  for (int j : {0, 2, 4, 6}) CHECK(p.data<float>()[j] == 0.0f);
  for (int j : {1, 3, 5}) CHECK(p.data<float>()[j] == doctest::Approx(1.0 / 3).epsilon(1e-6));
  const tensor d = run("Softmax", tensor::from_vector<double>({-INFINITY, 1, -INFINITY, 1,
                                                               -INFINITY}));
  for (int j : {0, 2, 4}) CHECK(d.data<double>()[j] == 0.0);
  CHECK(d.data<double>()[1] == doctest::Approx(0.5).epsilon(1e-12));
  const tensor lp = run("LogSoftmax", x);
  for (int j : {0, 2, 4, 6}) CHECK((std::isinf(lp.data<float>()[j]) && lp.data<float>()[j] < 0));
  CHECK(lp.data<float>()[3] == doctest::Approx(-std::log(3.0)).epsilon(1e-6));
}

TEST_CASE("a NaN poisons its own row only") {
  const tensor x =
      tensor::from_vector<float>({1, std::numeric_limits<float>::quiet_NaN(), 2, 0, 0, 0}, {2, 3});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    CAPTURE(op);
    const tensor p = run(op, x);
    for (int j = 0; j < 3; ++j) CHECK(std::isnan(p.data<float>()[j]));
    for (int j = 3; j < 6; ++j) CHECK_FALSE(std::isnan(p.data<float>()[j]));
  }
}

TEST_CASE("rows run along the last dimension of any rank; empty inputs give empty outputs") {
  // [2, 2, 2]: four rows of two.
  const float ln3 = std::log(3.0f);
  const tensor x = tensor::from_vector<float>({0, 0, 0, ln3, ln3, 0, 5, 5}, {2, 2, 2});
  check_tensor(run("Softmax", x), {2, 2, 2},
               std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f, 0.75f, 0.25f, 0.5f, 0.5f});
  check_tensor(run("Softmax", tensor::from_vector<float>({7})), {1}, std::vector<float>{1});
  check_tensor(run("LogSoftmax", tensor::from_vector<float>({7})), {1}, std::vector<float>{0});
  check_tensor(run("Softmax", tensor(dtype::float32, {0, 3})), {0, 3}, std::vector<float>{});
  check_tensor(run("LogSoftmax", tensor(dtype::float64, {2, 0})), {2, 0}, std::vector<double>{});
}

TEST_CASE("many rows over the intra-op pool") {
  // 3000 rows of 20: row r has log 3 at column r % 20 and zeros elsewhere, so its softmax is
  // 3/22 there and 1/22 elsewhere.
  const int64_t rows = 3000, cols = 20;
  std::vector<double> v(rows * cols, 0.0);
  for (int64_t r = 0; r < rows; ++r) v[r * cols + r % cols] = std::log(3.0);
  const tensor x = tensor::from_vector<double>(v, {rows, cols});
  const tensor p = run("Softmax", x);
  const tensor lp = run("LogSoftmax", x);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const double expected = c == r % cols ? 3.0 / 22 : 1.0 / 22;
      const int64_t i = r * cols + c;
      if (std::abs(p.data<double>()[i] - expected) > 1e-12 ||
          std::abs(lp.data<double>()[i] - std::log(expected)) > 1e-12)
        FAIL("row ", r, " column ", c, ": ", p.data<double>()[i], ", log ",
             lp.data<double>()[i]);
    }
}

TEST_CASE("scalars are refused at graph construction and by the kernel") {
  check_error(run_kernel("Softmax", {tensor::scalar<float>(1)}),
              "logits must have rank at least 1, got shape []");
  check_error(run_kernel_unchecked("LogSoftmax", {tensor::scalar<float>(1)}),
              "logits must have at least one dimension, got shape []");
  check_error(run_kernel("Softmax", {tensor::from_vector<int32_t>({1})}), "int32");
}
