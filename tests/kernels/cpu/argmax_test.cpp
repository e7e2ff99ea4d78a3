#include <limits>
#include <vector>

#include "devices/cpu_device.hpp"
#include "graph/client/ops/ops.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor arg(const std::string& op, const tensor& x, const tensor& dim,
           dtype output_type = dtype::int64) {
  auto r = run_kernel(op, {x, dim}, {{"output_type", output_type}});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor dim(int32_t d) { return tensor::scalar<int32_t>(d); }

}  // namespace

TEST_CASE("ArgMax and ArgMin along rows and columns; ties pick the first index") {
  // [[1, 5, 3], [7, 2, 7]]
  const tensor x = tensor::from_vector<float>({1, 5, 3, 7, 2, 7}, {2, 3});
  check_tensor<int64_t>(arg("ArgMax", x, dim(1)), {2}, {1, 0});
  check_tensor<int64_t>(arg("ArgMax", x, dim(-1)), {2}, {1, 0});
  check_tensor<int64_t>(arg("ArgMax", x, dim(0)), {3}, {1, 0, 1});
  check_tensor<int64_t>(arg("ArgMax", x, tensor::scalar<int64_t>(-2)), {3}, {1, 0, 1});
  check_tensor<int64_t>(arg("ArgMin", x, dim(1)), {2}, {0, 1});
  check_tensor<int64_t>(arg("ArgMin", x, dim(0)), {3}, {0, 1, 0});
  check_tensor<int32_t>(arg("ArgMax", x, dim(1), dtype::int32), {2}, {1, 0});
  check_tensor<int32_t>(arg("ArgMin", x, dim(0), dtype::int32), {3}, {0, 1, 0});

  const tensor equal = tensor::filled<int32_t>({4}, 9);
  check_tensor<int64_t>(arg("ArgMax", equal, dim(0)), {}, {0});
  check_tensor<int64_t>(arg("ArgMin", equal, dim(0)), {}, {0});
}

TEST_CASE("integer and double inputs, and a middle dimension") {
  const tensor i64 = tensor::from_vector<int64_t>({-5, -9, 4000000000LL, -1}, {4});
  check_tensor<int64_t>(arg("ArgMax", i64, dim(0)), {}, {2});
  check_tensor<int32_t>(arg("ArgMin", i64, dim(0), dtype::int32), {}, {1});
  // d[i][j][k] over [2, 3, 2]; along j the maxima are at rows 2, 0 (i = 0) and 1, 1 (i = 1).
  const tensor d = tensor::from_vector<double>({0, 9, 1, 2, 5, 3,  //
                                                4, 0, 8, 8, 1, 7},
                                               {2, 3, 2});
  check_tensor<int64_t>(arg("ArgMax", d, dim(1)), {2, 2}, {2, 0, 1, 1});
  check_tensor<int64_t>(arg("ArgMin", d, dim(1)), {2, 2}, {0, 1, 2, 0});
  const tensor i32 = tensor::from_vector<int32_t>({3, -3, 3, 4}, {2, 2});
  check_tensor<int64_t>(arg("ArgMin", i32, dim(0)), {2}, {0, 0});
}

TEST_CASE("the first NaN wins") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const tensor x = tensor::from_vector<float>({1, nan, 3, nan, 0, 5}, {6});
  check_tensor<int64_t>(arg("ArgMax", x, dim(0)), {}, {1});
  check_tensor<int64_t>(arg("ArgMin", x, dim(0)), {}, {1});
  const tensor first = tensor::from_vector<float>({nan, 7, -7}, {3});
  check_tensor<int64_t>(arg("ArgMax", first, dim(0)), {}, {0});
  check_tensor<int64_t>(arg("ArgMin", first, dim(0)), {}, {0});
}

TEST_CASE("large inputs scan on the thread pool") {
  // Rows of 100: x[r][j] = -(j - r % 100)^2 peaks at j = r % 100.
  const int64_t rows = 600, width = 100;
  tensor x(dtype::float32, {rows, width});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < width; ++j)
      x.data<float>()[r * width + j] = -static_cast<float>((j - r % 100) * (j - r % 100));
  const tensor by_row = arg("ArgMax", x, dim(1));
  REQUIRE(by_row.shape() == tensor_shape{rows});
  for (int64_t r = 0; r < rows; ++r) CHECK(by_row.data<int64_t>()[r] == r % 100);

  // z[o][j][i] over [3, 50, 400] peaks at j = (o + i) % 50 (maximum) and is lowest there
  // negated (minimum): a reduced middle dim with a wide inner dim.
  const int64_t outer = 3, size = 50, inner = 400;
  tensor z(dtype::int32, {outer, size, inner});
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < size; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t dist = j - (o + i) % size;
        z.data<int32_t>()[(o * size + j) * inner + i] = static_cast<int32_t>(-dist * dist);
      }
  const tensor mx = arg("ArgMax", z, dim(1), dtype::int32);
  REQUIRE(mx.shape() == tensor_shape{outer, inner});
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) CHECK(mx.data<int32_t>()[o * inner + i] == (o + i) % size);
}

TEST_CASE("zero-size dims that are not reduced give an empty result") {
  check_tensor<int64_t>(arg("ArgMax", tensor(dtype::float32, {0, 3}), dim(1)), {0}, {});
  check_tensor<int64_t>(arg("ArgMin", tensor(dtype::float32, {2, 0, 3}), dim(0)), {0, 3}, {});
}

TEST_CASE("ArgMax errors") {
  const tensor x(dtype::float32, {2, 3});
  check_error(run_kernel("ArgMax", {x, dim(2)}),
              "dimension 2 is out of range for input of rank 2: it must be in [-2, 2)");
  check_error(run_kernel("ArgMin", {x, dim(-3)}), "dimension -3 is out of range");
  check_error(run_kernel("ArgMax", {tensor(dtype::float32, {3, 0}), dim(1)}),
              "cannot reduce over dimension 1 of size 0 in shape [3,0]");
  check_error(run_kernel("ArgMax", {tensor::scalar<float>(1), dim(0)}),
              "input must have at least one dimension");
  check_error(run_kernel("ArgMax", {x, tensor::from_vector<int32_t>({0})}),
              "dimension must be a scalar, got shape [1]");
}

TEST_CASE("the kernel checks what shape inference never saw") {
  const std::map<std::string, attr_value> attrs{{"T", dtype::float32}};
  const tensor x(dtype::float32, {2, 3});
  check_error(run_kernel_unchecked("ArgMax", {x, dim(2)}, attrs),
              "dimension 2 is out of range for input of rank 2");
  check_error(run_kernel_unchecked("ArgMin", {tensor(dtype::float32, {0}), dim(0)}, attrs),
              "cannot reduce over dimension 0 of size 0 in shape [0]");
  check_error(run_kernel_unchecked("ArgMax", {tensor::scalar<float>(1), dim(0)}, attrs),
              "input must have at least one dimension");
  check_error(
      run_kernel_unchecked("ArgMax", {x, tensor::from_vector<int32_t>({0, 1})}, attrs),
      "dimension must be a scalar, got shape [2]");
}

TEST_CASE("ops::arg_max and ops::arg_min infer shapes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{4, -1, 6}});
  auto best = ops::arg_max(root.with_op_name("best"), x, 1);
  CHECK(best.node == "best");
  CHECK(best.type == dtype::int64);
  CHECK(root.shape_of(best).to_string() == "[4,6]");
  auto worst = ops::arg_min(root, x, -1, {.output_type = dtype::int32});
  CHECK(worst.type == dtype::int32);
  CHECK(root.shape_of(worst).to_string() == "[4,?]");
  auto fed = ops::placeholder(root, dtype::int32);
  CHECK(root.shape_of(ops::arg_max(root, x, fed)).to_string() == "[?,?]");
  REQUIRE(root.ok());
  ops::arg_max(root, x, 3);
  check_error(root.get_status(), "dimension 3 is out of range for input of rank 3");
}
