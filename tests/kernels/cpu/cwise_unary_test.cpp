#include <cmath>
#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const tensor& x) {
  auto r = run_kernel(op, {x});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
tensor t_(const std::vector<T>& v) {
  return tensor::from_vector<T>(v);
}

constexpr float k_inf = std::numeric_limits<float>::infinity();
constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

bool is_pos_inf(double v) { return std::isinf(v) && v > 0; }
bool is_neg_inf(double v) { return std::isinf(v) && v < 0; }

}  // namespace

TEST_CASE("Neg, Square and Abs on floats and integers") {
  const tensor neg = run1("Neg", t_<float>({1, -2.5f, 0}));
  check_tensor(neg, {3}, std::vector<float>{-1, 2.5f, 0});
  CHECK(std::signbit(neg.data<float>()[2]));  // -0
  check_tensor(run1("Neg", t_<int32_t>({3, -4})), {2}, std::vector<int32_t>{-3, 4});
  check_tensor(run1("Neg", t_<int64_t>({int64_t{1} << 40})), {1},
               std::vector<int64_t>{-(int64_t{1} << 40)});
  check_tensor(run1("Square", t_<float>({3, -1.5f})), {2}, std::vector<float>{9, 2.25f});
  check_tensor(run1("Square", t_<double>({0.1})), {1}, std::vector<double>{0.01}, 1e-12);
  check_tensor(run1("Square", t_<int32_t>({-3, 4})), {2}, std::vector<int32_t>{9, 16});
  check_tensor(run1("Square", t_<int64_t>({-7, 100000})), {2},
               std::vector<int64_t>{49, 10'000'000'000});
  check_tensor(run1("Abs", t_<float>({-2.5f, 3, -0.0f})), {3}, std::vector<float>{2.5f, 3, 0});
  check_tensor(run1("Abs", t_<double>({-1e300})), {1}, std::vector<double>{1e300});
  check_tensor(run1("Abs", t_<int32_t>({-7, 0, 5})), {3}, std::vector<int32_t>{7, 0, 5});
  check_tensor(run1("Abs", t_<int64_t>({-(int64_t{1} << 50)})), {1},
               std::vector<int64_t>{int64_t{1} << 50});
}

TEST_CASE("Sqrt and Rsqrt: NaN for negatives, infinity at the edges") {
  // The edge values sit both in the vectorized head and in the scalar tail.
  const tensor s = run1("Sqrt", t_<float>({k_inf, -1, 4, k_nan, 2.25f, 0, 1e-2f, 9, -1, k_inf}));
  CHECK(std::isnan(s.data<float>()[3]));
  check_tensor(s.slice_dim0(4, 8), {4}, std::vector<float>{1.5f, 0, 0.1f, 3});
  CHECK(s.data<float>()[2] == 2.0f);
  for (int i : {0, 9}) CHECK(is_pos_inf(s.data<float>()[i]));
  for (int i : {1, 8}) CHECK(std::isnan(s.data<float>()[i]));
  const tensor d = run1("Sqrt", t_<double>({k_inf, 9, 0.01, -4, k_inf}));
  check_tensor(d.slice_dim0(1, 3), {2}, std::vector<double>{3, 0.1}, 1e-12);
  CHECK(is_pos_inf(d.data<double>()[0]));
  CHECK(std::isnan(d.data<double>()[3]));
  CHECK(is_pos_inf(d.data<double>()[4]));
  const tensor r = run1("Rsqrt", t_<float>({4, 0.25f, 1, 0, -4}));
  check_tensor(r.slice_dim0(0, 3), {3}, std::vector<float>{0.5f, 2, 1});
  CHECK(is_pos_inf(r.data<float>()[3]));
  CHECK(std::isnan(r.data<float>()[4]));
  check_tensor(run1("Rsqrt", t_<double>({16, 100})), {2}, std::vector<double>{0.25, 0.1}, 1e-12);
}

TEST_CASE("Exp and Log, with Log(0) = -inf and Log of a negative = NaN") {
  check_tensor(run1("Exp", t_<float>({0, 1, -1, 2})), {4},
               std::vector<float>{1, 2.7182818f, 0.36787944f, 7.3890561f});
  const tensor e = run1("Exp", t_<double>({-INFINITY, 1000, -1000, 0.5, -INFINITY}));
  CHECK(e.data<double>()[0] == 0.0);
  CHECK(is_pos_inf(e.data<double>()[1]));
  CHECK(e.data<double>()[2] == 0.0);
  CHECK(e.data<double>()[3] == doctest::Approx(1.6487212707001282).epsilon(1e-12));
  CHECK(e.data<double>()[4] == 0.0);
  const tensor f = run1("Exp", t_<float>({-k_inf, -200, 100, k_nan, -80, -k_inf, k_nan}));
  CHECK(f.data<float>()[0] == 0.0f);
  CHECK(f.data<float>()[1] == 0.0f);
  CHECK(is_pos_inf(f.data<float>()[2]));
  CHECK(std::isnan(f.data<float>()[3]));
  CHECK(f.data<float>()[4] == doctest::Approx(1.8048513878e-35).epsilon(1e-5));
  CHECK(f.data<float>()[5] == 0.0f);
  CHECK(std::isnan(f.data<float>()[6]));
  const tensor l = run1("Log", t_<float>({0, -1, 1, 2.7182818f, 0.5f, k_inf, 0, -1}));
  check_tensor(l.slice_dim0(2, 5), {3}, std::vector<float>{0, 1, -0.69314718f});
  for (int i : {0, 6}) CHECK(is_neg_inf(l.data<float>()[i]));
  for (int i : {1, 7}) CHECK(std::isnan(l.data<float>()[i]));
  CHECK(is_pos_inf(l.data<float>()[5]));
  check_tensor(run1("Log", t_<double>({100, 1e-3})), {2},
               std::vector<double>{4.605170185988091, -6.907755278982137}, 1e-12);
}

TEST_CASE("Sign keeps NaN and zero; Reciprocal of zero is infinity; Floor rounds down") {
  check_tensor(run1("Sign", t_<float>({-3, 0, 2.5f, k_nan})), {4},
               std::vector<float>{-1, 0, 1, k_nan});
  check_tensor(run1("Sign", t_<double>({-1e-300, 7})), {2}, std::vector<double>{-1, 1});
  check_tensor(run1("Sign", t_<int32_t>({-9, 0, 4})), {3}, std::vector<int32_t>{-1, 0, 1});
  check_tensor(run1("Sign", t_<int64_t>({int64_t{-1} << 40, 0, 1})), {3},
               std::vector<int64_t>{-1, 0, 1});
  const tensor r = run1("Reciprocal", t_<float>({2, -0.5f, 4, 0}));
  check_tensor(r.slice_dim0(0, 3), {3}, std::vector<float>{0.5f, -2, 0.25f});
  CHECK(is_pos_inf(r.data<float>()[3]));
  check_tensor(run1("Reciprocal", t_<double>({8})), {1}, std::vector<double>{0.125});
  check_tensor(run1("Floor", t_<float>({1.5f, -1.5f, 2, -0.2f})), {4},
               std::vector<float>{1, -2, 2, -1});
  check_tensor(run1("Floor", t_<double>({1e15 + 0.5, -0.0})), {2}, std::vector<double>{1e15, 0});
}

TEST_CASE("unary ops keep the input's shape: scalars, matrices, zero-size") {
  check_tensor(run1("Exp", tensor::scalar(0.0f)), {}, std::vector<float>{1});
  check_tensor(run1("Neg", tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3})), {2, 3},
               std::vector<int32_t>{-1, -2, -3, -4, -5, -6});
  CHECK(run1("Sqrt", tensor(dtype::float32, {0, 2})).shape() == tensor_shape{0, 2});
  CHECK(run1("Abs", tensor(dtype::int64, {3, 0})).shape() == tensor_shape{3, 0});
}

TEST_CASE("large inputs are evaluated on the intra-op pool and stay correct") {
  const int64_t n = 100'000;
  tensor squares(dtype::float64, {n});
  for (int64_t i = 0; i < n; ++i) squares.data<double>()[i] = double(i) * double(i);
  const tensor roots = run1("Sqrt", squares);
  for (int64_t i = 0; i < n; ++i) REQUIRE(roots.data<double>()[i] == double(i));
  tensor ints(dtype::int32, {n});
  for (int64_t i = 0; i < n; ++i) ints.data<int32_t>()[i] = int32_t(i) - 50'000;
  const tensor neg = run1("Neg", ints);
  for (int64_t i = 0; i < n; ++i) REQUIRE(neg.data<int32_t>()[i] == 50'000 - int32_t(i));
}

TEST_CASE("float-only ops refuse integer inputs") {
  check_error(run_kernel("Sqrt", {tensor::scalar(4)}), "int32");
  check_error(run_kernel("Log", {tensor::scalar<int64_t>(1)}), "not one of");
  check_error(run_kernel("Floor", {tensor::scalar(true)}), "bool");
  // Reciprocal allows integers in its op contract, as TF does, but has only float kernels.
  check_error(run_kernel("Reciprocal", {tensor::scalar(4)}), "no CPU kernel");
}
