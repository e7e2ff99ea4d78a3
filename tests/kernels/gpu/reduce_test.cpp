// The GPU reductions' designs (reduce.cu, arg_max.cu) at sizes that take each path: CUB's full
// reduction over 64M+3 floats, short rows (a warp each), rows cut into chunks, a block per
// row, and column tiles with and without chunks; each against the CPU kernel, and the full Sum
// also run twice to check it is the same to the bit.
#include <cmath>
#include <cstring>
#include <limits>

#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

std::map<std::string, attr_value> reduce_attrs(dtype t) {
  return {{"T", t}, {"Tidx", dtype::int32}, {"keep_dims", false}};
}

// Cheap values in [0, 1) for big inputs (a Mersenne twister over 64M takes seconds).
tensor ramp(int64_t n, uint32_t salt) {
  tensor t(dtype::float32, tensor_shape{n});
  uint32_t s = salt * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / 16777216.0f;
  }
  return t;
}

TEST_CASE("a full Sum of 64M+3 floats: accurate, and the same bits on every run") {
  CAFLOW_REQUIRE_GPU(gpu);
  const int64_t n = (int64_t{64} << 20) + 3;
  const tensor x = ramp(n, 1);
  double exact = 0;
  for (int64_t i = 0; i < n; ++i) exact += x.data<float>()[i];
  auto first = run_gpu_kernel(*gpu, "Sum", {x, vec32({0})}, reduce_attrs(dtype::float32));
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  const float got = first->at(0).scalar_value<float>();
  // A tree of partial sums rounds far less than a float running sum: within 1e-6 of the exact
  // sum (the CPU kernel's own error is larger here, so it is not the reference).
  CHECK(std::abs(got - exact) <= 1e-6 * exact);
  auto second = run_gpu_kernel(*gpu, "Sum", {x, vec32({0})}, reduce_attrs(dtype::float32));
  REQUIRE(second.ok());
  const float again = second->at(0).scalar_value<float>();
  CHECK(std::memcmp(&got, &again, sizeof got) == 0);
  // Max and Mean take the same path; Max is exact, so it must equal the CPU's.
  check_gpu_matches_cpu(*gpu, "Max", {x, vec32({0})}, reduce_attrs(dtype::float32), 0);
  check_gpu_matches_cpu(*gpu, "Mean", {x, vec32({0})}, reduce_attrs(dtype::float32), 1e-4);
}

TEST_CASE("row reductions: short rows, chunked long rows, a block per row") {
  CAFLOW_REQUIRE_GPU(gpu);
  struct shape_case {
    int64_t rows, cols;
  };
  // 37: a warp per row; 3 x 1000003: each row cut into chunks; 700 x 3001: a block per row;
  // 1 x 257 inside [4099, 257]: many blocks, odd lengths.
  for (const shape_case c : {shape_case{5000, 37}, {3, 1000003}, {700, 3001}, {4099, 257}}) {
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    const tensor f = random_tensor<float>(tensor_shape{c.rows, c.cols}, -1, 1, 41);
    for (const char* op : {"Sum", "Mean", "Max"})
      check_gpu_matches_cpu(*gpu, op, {f, vec32({1})}, reduce_attrs(dtype::float32), 1e-4);
    const tensor i = random_tensor<int32_t>(tensor_shape{c.rows, c.cols}, -50, 50, 42);
    check_gpu_matches_cpu(*gpu, "Sum", {i, vec32({1})}, reduce_attrs(dtype::int32), 0);
    check_gpu_matches_cpu(*gpu, "Max", {i, vec32({1})}, reduce_attrs(dtype::int32), 0);
  }
  const tensor d = random_tensor<double>(tensor_shape{2, 2000001}, -1, 1, 43);
  check_gpu_matches_cpu(*gpu, "Sum", {d, vec32({1})}, reduce_attrs(dtype::float64), 1e-9);
}

TEST_CASE("column reductions: coalesced tiles, with and without chunks") {
  CAFLOW_REQUIRE_GPU(gpu);
  // [outer, size, inner] reduced over the middle: inner 3 (partial tiles, chunks over a long
  // column), 33 (one full tile and a one-column tile), 4099 (many tiles, no chunks).
  for (const tensor_shape& s : {tensor_shape{1, 1000003, 3}, tensor_shape{7, 5001, 33},
                                tensor_shape{2, 100, 4099}, tensor_shape{3, 1, 5}}) {
    CAPTURE(s.to_string());
    const tensor f = random_tensor<float>(s, -1, 1, 44);
    for (const char* op : {"Sum", "Mean", "Max"})
      check_gpu_matches_cpu(*gpu, op, {f, vec32({1})}, reduce_attrs(dtype::float32), 1e-4);
    const tensor l = random_tensor<int64_t>(s, -1000, 1000, 45);
    check_gpu_matches_cpu(*gpu, "Sum", {l, vec32({1})}, reduce_attrs(dtype::int64), 0);
  }
  // BiasAddGrad is a column Sum over every row: [N*H*W, C] with few channels.
  const tensor g = random_tensor<float>(tensor_shape{100, 28, 28, 32}, -1, 1, 46);
  check_gpu_matches_cpu(*gpu, "BiasAddGrad", {g}, {{"T", dtype::float32}}, 1e-4);
}

TEST_CASE("ArgMax over long rows, short rows and columns, with ties and NaNs as the CPU has them") {
  CAFLOW_REQUIRE_GPU(gpu);
  const auto attrs = [](dtype t) {
    return std::map<std::string, attr_value>{
        {"T", t}, {"Tidx", dtype::int32}, {"output_type", dtype::int64}};
  };
  for (const tensor_shape& s : {tensor_shape{1000, 10}, tensor_shape{7, 100003},
                                tensor_shape{30, 700, 5}}) {
    CAPTURE(s.to_string());
    const tensor f = random_tensor<float>(s, -1, 1, 47);
    check_gpu_matches_cpu(*gpu, "ArgMax", {f, tensor::scalar<int32_t>(1)}, attrs(dtype::float32));
    // Few distinct values: many ties, the first index must win.
    const tensor i = random_tensor<int32_t>(s, 0, 3, 48);
    check_gpu_matches_cpu(*gpu, "ArgMax", {i, tensor::scalar<int32_t>(1)}, attrs(dtype::int32));
  }
  // A NaN beats every number and the first NaN wins, on any path.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(3 * 300, 0.5f);
  v[5] = 2;      // row 0: plain maximum
  v[300 + 7] = nan;
  v[300 + 250] = nan;  // row 1: first NaN at 7
  v[600 + 299] = nan;  // row 2: NaN last
  const tensor rows = tensor::from_vector<float>(v, tensor_shape{3, 300});
  check_gpu_matches_cpu(*gpu, "ArgMax", {rows, tensor::scalar<int32_t>(1)}, attrs(dtype::float32));
  const tensor shorter = tensor::from_vector<float>(std::vector<float>(v.begin(), v.begin() + 3 * 30),
                                                    tensor_shape{3, 30});
  check_gpu_matches_cpu(*gpu, "ArgMax", {shorter, tensor::scalar<int32_t>(1)}, attrs(dtype::float32));
  check_gpu_matches_cpu(*gpu, "ArgMax", {rows, tensor::scalar<int32_t>(0)}, attrs(dtype::float32));
}

}  // namespace
}  // namespace caflow::testing
