#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor cast(const tensor& x, dtype to, bool truncate = false) {
  auto r = run_kernel("Cast", {x}, {{"DstT", to}, {"Truncate", truncate}});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 1);
  return r->at(0);
}

template <class T>
tensor t_(const std::vector<T>& v) {
  return tensor::from_vector<T>(v);
}

tensor bools(const std::vector<bool>& v) {
  tensor t(dtype::boolean, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

constexpr dtype all_dtypes[] = {dtype::float32, dtype::float64, dtype::int32,
                                dtype::int64,   dtype::uint8,   dtype::boolean};

// {0, 1, 0} in any dtype.
tensor zero_one_zero(dtype t) {
  tensor out(t, {3});
  visit_dtype(t, [&]<class T>() {
    out.data<T>()[0] = T(0);
    out.data<T>()[1] = T(1);
    out.data<T>()[2] = T(0);
  });
  return out;
}

}  // namespace

TEST_CASE("every pair of dtypes casts, keeping 0 and 1") {
  for (dtype from : all_dtypes) {
    for (dtype to : all_dtypes) {
      CAPTURE(dtype_name(from));
      CAPTURE(dtype_name(to));
      check_tensor(cast(zero_one_zero(from), to), zero_one_zero(to));
    }
  }
}

TEST_CASE("floating point to integers truncates toward zero, saturates, and maps NaN to 0") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  check_tensor(cast(t_<float>({1.7f, -1.7f, 0, 1e10f, -1e10f, nan, inf, -inf}), dtype::int32), {8},
               std::vector<int32_t>{1, -1, 0, std::numeric_limits<int32_t>::max(),
                                    std::numeric_limits<int32_t>::min(), 0,
                                    std::numeric_limits<int32_t>::max(),
                                    std::numeric_limits<int32_t>::min()});
  check_tensor(cast(t_<double>({3.9, -1, 300, 255, -0.5}), dtype::uint8), {5},
               std::vector<uint8_t>{3, 0, 255, 255, 0});
  check_tensor(cast(t_<double>({-2.5e15, 9.3e18, 123456789012.9}), dtype::int64), {3},
               std::vector<int64_t>{-2'500'000'000'000'000, std::numeric_limits<int64_t>::max(),
                                    123'456'789'012});
  check_tensor(cast(t_<float>({2147483520.0f}), dtype::int32), {1},
               std::vector<int32_t>{2147483520});  // the largest float below 2^31
}

TEST_CASE("to bool: nonzero is true, NaN included; from bool: 0 or 1") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  check_tensor(cast(t_<float>({0.0f, -0.0f, 0.5f, nan, -3}), dtype::boolean),
               bools({false, false, true, true, true}));
  check_tensor(cast(t_<int32_t>({0, 5, -1}), dtype::boolean), bools({false, true, true}));
  check_tensor(cast(t_<int64_t>({int64_t{1} << 40, 0}), dtype::boolean), bools({true, false}));
  check_tensor(cast(t_<uint8_t>({0, 128}), dtype::boolean), bools({false, true}));
  check_tensor(cast(bools({true, false}), dtype::float32), {2}, std::vector<float>{1, 0});
  check_tensor(cast(bools({false, true}), dtype::int64), {2}, std::vector<int64_t>{0, 1});
  check_tensor(cast(bools({true}), dtype::uint8), {1}, std::vector<uint8_t>{1});
}

TEST_CASE("integer narrowing wraps modulo 2^n; widening and int-to-float are exact") {
  check_tensor(cast(t_<int64_t>({(int64_t{1} << 32) + 5, -1, int64_t{1} << 31}), dtype::int32), {3},
               std::vector<int32_t>{5, -1, std::numeric_limits<int32_t>::min()});
  check_tensor(cast(t_<int32_t>({263, -1, 255}), dtype::uint8), {3},
               std::vector<uint8_t>{7, 255, 255});
  check_tensor(cast(t_<uint8_t>({255, 0}), dtype::int32), {2}, std::vector<int32_t>{255, 0});
  check_tensor(cast(t_<int32_t>({-3, 7}), dtype::float64), {2}, std::vector<double>{-3, 7});
  check_tensor(cast(t_<int64_t>({int64_t{1} << 53}), dtype::float64), {1},
               std::vector<double>{9007199254740992.0}, 0);
  const tensor narrowed = cast(t_<double>({0.1, 1e300}), dtype::float32);
  CHECK(narrowed.data<float>()[0] == 0.1f);
  CHECK(narrowed.data<float>()[1] == std::numeric_limits<float>::infinity());
}

TEST_CASE("a cast to the same dtype shares the input's bytes; Truncate is accepted") {
  const tensor x = t_<float>({1, 2, 3});
  const tensor y = cast(x, dtype::float32);
  CHECK(y.shares_buffer_with(x));
  check_tensor(cast(t_<float>({2.5f}), dtype::int32, true), {1}, std::vector<int32_t>{2});
}

TEST_CASE("shapes are kept: scalars, matrices, zero-size, large") {
  check_tensor(cast(tensor::scalar(7), dtype::float32), {}, std::vector<float>{7});
  check_tensor(cast(tensor::from_vector<float>({1.5f, -2.5f, 3, 4}, {2, 2}), dtype::int64), {2, 2},
               std::vector<int64_t>{1, -2, 3, 4});
  CHECK(cast(tensor(dtype::int32, {0, 5}), dtype::boolean).shape() == tensor_shape{0, 5});
  const int64_t n = 100'000;
  tensor big(dtype::int32, {n});
  for (int64_t i = 0; i < n; ++i) big.data<int32_t>()[i] = int32_t(i) - 7;
  const tensor f = cast(big, dtype::float64);
  for (int64_t i = 0; i < n; ++i) REQUIRE(f.data<double>()[i] == double(i) - 7);
}

TEST_CASE("Cast needs DstT") { check_error(run_kernel("Cast", {tensor::scalar(1.0f)}), "DstT"); }
