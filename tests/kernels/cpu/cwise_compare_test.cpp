#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const std::vector<tensor>& inputs,
            std::map<std::string, attr_value> attrs = {}) {
  auto r = run_kernel(op, inputs, std::move(attrs));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
tensor t_(const std::vector<T>& v, const tensor_shape& s) {
  return tensor::from_vector<T>(v, s);
}

tensor bools(const std::vector<bool>& v, const tensor_shape& s) {
  tensor t(dtype::boolean, s);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

void check_bools(const tensor& actual, const tensor_shape& s, const std::vector<bool>& v) {
  check_tensor(actual, bools(v, s));
}

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE("Equal compares every dtype; NaN equals nothing, not even NaN") {
  check_bools(run1("Equal", {t_<float>({1, 2, k_nan}, {3}), t_<float>({1, 3, k_nan}, {3})}), {3},
              {true, false, false});
  check_bools(run1("Equal", {t_<double>({0.0, -0.0}, {2}), t_<double>({-0.0, 1}, {2})}), {2},
              {true, false});
  check_bools(run1("Equal", {t_<int32_t>({1, 2, 2, 4}, {2, 2}), tensor::scalar(2)}), {2, 2},
              {false, true, true, false});
  check_bools(run1("Equal", {t_<int64_t>({int64_t{1} << 40}, {1}),
                             t_<int64_t>({(int64_t{1} << 40) + 1, int64_t{1} << 40}, {2})}),
              {2}, {false, true});
  check_bools(run1("Equal", {t_<uint8_t>({0, 255, 7}, {3}), t_<uint8_t>({0, 255, 8}, {3})}), {3},
              {true, true, false});
  check_bools(run1("Equal", {bools({true, false}, {2, 1}), bools({true, false}, {2})}), {2, 2},
              {true, false, false, true});
}

TEST_CASE("Greater and Less, with broadcasting, unsigned values and NaN") {
  check_bools(run1("Greater", {t_<float>({1, 5, 3, 0, 9, 2}, {2, 3}), t_<float>({2, 4, 3}, {3})}),
              {2, 3}, {false, true, false, false, true, false});
  check_bools(run1("Less", {t_<float>({1, 5, 3, 0, 9, 2}, {2, 3}), t_<float>({2, 4, 3}, {3})}),
              {2, 3}, {true, false, false, true, false, true});
  check_bools(run1("Greater", {t_<uint8_t>({200, 5}, {2}), t_<uint8_t>({100, 5}, {2})}), {2},
              {true, false});
  check_bools(run1("Less", {tensor::scalar<int64_t>(-1), t_<int64_t>({-2, -1, 0}, {3})}), {3},
              {false, false, true});
  check_bools(run1("Greater", {t_<int32_t>({3, -3}, {2, 1}), t_<int32_t>({0, 3}, {1, 2})}), {2, 2},
              {true, false, false, false});
  check_bools(run1("Less", {t_<double>({k_nan, 1}, {2}), tensor::scalar(2.0)}), {2}, {false, true});
  check_bools(run1("Greater", {t_<double>({k_nan, 1}, {2}), tensor::scalar(0.0)}), {2},
              {false, true});
}

TEST_CASE("comparisons over zero-size and large broadcast shapes") {
  CHECK(run1("Less", {tensor(dtype::float32, {0, 4}), tensor(dtype::float32, {4})}).shape() ==
        tensor_shape{0, 4});
  // [400,100] > [100]: x[i,j] = j + i, y[j] = j + 200, so x > y exactly when i > 200.
  tensor x(dtype::int32, {400, 100}), y(dtype::int32, {100});
  for (int i = 0; i < 400; ++i)
    for (int j = 0; j < 100; ++j) x.data<int32_t>()[i * 100 + j] = i + j;
  for (int j = 0; j < 100; ++j) y.data<int32_t>()[j] = j + 200;
  const tensor gt = run1("Greater", {x, y});
  REQUIRE(gt.shape() == tensor_shape{400, 100});
  for (int i = 0; i < 400; ++i)
    for (int j = 0; j < 100; ++j) REQUIRE(gt.data<bool>()[i * 100 + j] == (i > 200));
}

TEST_CASE("Equal with incompatible_shape_error = false gives a scalar false") {
  const tensor x = t_<float>({1, 2}, {2}), y = t_<float>({1, 2, 3}, {3});
  check_bools(run1("Equal", {x, y}, {{"incompatible_shape_error", false}}), {}, {false});
  // Compatible shapes still compare element-wise.
  check_bools(run1("Equal", {x, t_<float>({2}, {1})}, {{"incompatible_shape_error", false}}), {2},
              {false, true});
  auto strict = run_kernel("Equal", {x, y});
  check_error(strict, "[2]");
  check_error(strict, "[3]");
  check_error(run_kernel("Less", {tensor(dtype::int32, {2, 3}), tensor(dtype::int32, {2})}),
              "[2,3]");
}

TEST_CASE("ordering comparisons refuse bool") {
  check_error(run_kernel("Greater", {tensor::scalar(true), tensor::scalar(false)}), "bool");
}
