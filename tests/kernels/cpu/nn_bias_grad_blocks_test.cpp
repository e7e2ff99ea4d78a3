// BiasAddGrad's blocked column sums: shapes whose rows split into blocks unevenly, a row wider
// than a block, and conv1's gradient shape, against sums worked out by hand.
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor bias_grad(const tensor& x) {
  auto r = run_kernel("BiasAddGrad", {x});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("BiasAddGrad of rows wider than a block (one row per block)") {
  // 3 rows of 20000: row r holds r + 1 everywhere, so every column sums to 1 + 2 + 3.
  const int64_t rows = 3, cols = 20000;
  std::vector<float> x(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) x[static_cast<size_t>(i)] = float(i / cols + 1);
  check_tensor(bias_grad(tensor::from_vector<float>(x, {rows, cols})), {cols},
               std::vector<float>(cols, 6.0f));
}

TEST_CASE("BiasAddGrad of conv1's gradient shape: column c of 78400 rows holds c - 16") {
  const int64_t n = 100, h = 28, w = 28, c = 32, rows = n * h * w;
  std::vector<float> x(static_cast<size_t>(rows * c));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int64_t(i) % c - 16);
  std::vector<float> expected(c);
  for (int64_t j = 0; j < c; ++j) expected[size_t(j)] = float((j - 16) * rows);
  // Integers well below 2^24: exact in float whatever the order of the additions.
  check_tensor(bias_grad(tensor::from_vector<float>(x, {n, h, w, c})), {c}, expected, 0);
}

TEST_CASE("BiasAddGrad of a single column over many blocks") {
  // 40000 rows of one element i: 0 + 1 + ... + 39999 = 799980000, exact in double.
  const int64_t rows = 40000;
  std::vector<double> x(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) x[size_t(i)] = double(i);
  check_tensor(bias_grad(tensor::from_vector<double>(x, {rows, 1})), {1},
               std::vector<double>{799980000.0}, 0);
}
