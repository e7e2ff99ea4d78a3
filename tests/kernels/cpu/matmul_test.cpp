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

tensor mat_mul(const tensor& a, const tensor& b, bool transpose_a = false,
               bool transpose_b = false) {
  auto r =
      run_kernel("MatMul", {a, b}, {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

// A row-major [rows, cols] matrix stored transposed, as [cols, rows].
template <class T>
tensor transposed(const tensor& m) {
  const int64_t rows = m.dim(0), cols = m.dim(1);
  tensor t(m.type(), {cols, rows});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t.data<T>()[j * rows + i] = m.data<T>()[i * cols + j];
  return t;
}

}  // namespace

TEST_CASE("MatMul of a [2,3] and a [3,4] matrix, in all four transpose combinations") {
  const tensor a = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const tensor b = tensor::from_vector<float>({1, 0, 2, 1, 0, 1, 1, 2, 1, 1, 0, 3}, {3, 4});
  // Row 0: [1 + 3, 2 + 3, 2 + 2, 1 + 4 + 9]; row 1: [4 + 6, 5 + 6, 8 + 5, 4 + 10 + 18].
  const std::vector<float> expected{4, 5, 4, 14, 10, 11, 13, 32};
  const tensor a_t = tensor::from_vector<float>({1, 4, 2, 5, 3, 6}, {3, 2});
  const tensor b_t = tensor::from_vector<float>({1, 0, 1, 0, 1, 1, 2, 1, 0, 1, 2, 3}, {4, 3});
  check_tensor<float>(mat_mul(a, b), {2, 4}, expected);
  check_tensor<float>(mat_mul(a_t, b, true, false), {2, 4}, expected);
  check_tensor<float>(mat_mul(a, b_t, false, true), {2, 4}, expected);
  check_tensor<float>(mat_mul(a_t, b_t, true, true), {2, 4}, expected);
}

TEST_CASE("MatMul of integer and double matrices") {
  const tensor a = tensor::from_vector<int32_t>({1, -2, 3, 4}, {2, 2});
  const tensor b = tensor::from_vector<int32_t>({5, 6, 7, 8}, {2, 2});
  check_tensor<int32_t>(mat_mul(a, b), {2, 2}, {-9, -10, 43, 50});
  check_tensor<int32_t>(mat_mul(a, b, true, false), {2, 2}, {26, 30, 18, 20});
  const tensor big = tensor::from_vector<int64_t>({3000000000LL, 1}, {1, 2});
  const tensor col = tensor::from_vector<int64_t>({2, 5}, {2, 1});
  check_tensor<int64_t>(mat_mul(big, col), {1, 1}, {6000000005LL});
  const tensor d = tensor::from_vector<double>({0.5, 0.25}, {2, 1});
  check_tensor<double>(mat_mul(d, d, true, false), {1, 1}, {0.3125});
  check_tensor<double>(mat_mul(d, d, false, true), {2, 2}, {0.25, 0.125, 0.125, 0.0625});
}

TEST_CASE("large products run on the thread pool, transposes included") {
  // a[i][p] = i + p over [70, 60], b[p][j] = 1 over [60, 50]: c[i][j] = 60 i + 1770.
  const int64_t m = 70, k = 60, n = 50;
  tensor a(dtype::float32, {m, k});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) a.data<float>()[i * k + p] = static_cast<float>(i + p);
  const tensor b = tensor::filled<float>({k, n}, 1.0f);
  std::vector<float> expected(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) expected[i * n + j] = static_cast<float>(60 * i + 1770);
  check_tensor<float>(mat_mul(a, b), {m, n}, expected);
  check_tensor<float>(mat_mul(transposed<float>(a), b, true, false), {m, n}, expected);
  check_tensor<float>(mat_mul(a, transposed<float>(b), false, true), {m, n}, expected);
  check_tensor<float>(mat_mul(transposed<float>(a), transposed<float>(b), true, true), {m, n},
                      expected);
}

TEST_CASE("a large non-uniform product matches a reference in all transpose combinations") {
  const int64_t m = 37, k = 53, n = 41;  // odd sizes exercise the packing edges
  tensor a(dtype::float64, {m, k}), b(dtype::float64, {k, n});
  for (int64_t i = 0; i < m * k; ++i) a.data<double>()[i] = static_cast<double>((i * 7) % 11) - 5;
  for (int64_t i = 0; i < k * n; ++i) b.data<double>()[i] = static_cast<double>((i * 5) % 13) - 6;
  std::vector<double> expected(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        expected[i * n + j] += a.data<double>()[i * k + p] * b.data<double>()[p * n + j];
  check_tensor<double>(mat_mul(a, b), {m, n}, expected);
  check_tensor<double>(mat_mul(transposed<double>(a), b, true, false), {m, n}, expected);
  check_tensor<double>(mat_mul(a, transposed<double>(b), false, true), {m, n}, expected);
  check_tensor<double>(mat_mul(transposed<double>(a), transposed<double>(b), true, true), {m, n},
                       expected);
  // The same through int32, which has no BLAS-like fast path of its own.
  tensor ai(dtype::int32, {m, k}), bi(dtype::int32, {k, n});
  for (int64_t i = 0; i < m * k; ++i)
    ai.data<int32_t>()[i] = static_cast<int32_t>(a.data<double>()[i]);
  for (int64_t i = 0; i < k * n; ++i)
    bi.data<int32_t>()[i] = static_cast<int32_t>(b.data<double>()[i]);
  std::vector<int32_t> expected_i(expected.begin(), expected.end());
  check_tensor<int32_t>(mat_mul(transposed<int32_t>(ai), bi, true, false), {m, n}, expected_i);
}

TEST_CASE("zero-size dims") {
  // k == 0: a sum of nothing, so zeros.
  check_tensor<float>(mat_mul(tensor(dtype::float32, {2, 0}), tensor(dtype::float32, {0, 3})),
                      {2, 3}, {0, 0, 0, 0, 0, 0});
  check_tensor<int64_t>(
      mat_mul(tensor(dtype::int64, {0, 2}), tensor(dtype::int64, {3, 0}), true, true), {2, 3},
      {0, 0, 0, 0, 0, 0});
  check_tensor<float>(mat_mul(tensor(dtype::float32, {0, 3}), tensor(dtype::float32, {3, 2})),
                      {0, 2}, {});
  check_tensor<double>(mat_mul(tensor(dtype::float64, {4, 3}), tensor(dtype::float64, {3, 0})),
                       {4, 0}, {});
}

TEST_CASE("MatMul errors show the shapes") {
  const tensor m23(dtype::float32, {2, 3}), m45(dtype::float32, {4, 5});
  check_error(run_kernel("MatMul", {m23, m45}),
              "matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  // Shapes that would fit untransposed do not fit once b is transposed.
  check_error(run_kernel("MatMul", {m23, tensor(dtype::float32, {3, 2})}, {{"transpose_b", true}}),
              "In[0]: [2,3], In[1]: [3,2], transpose_a=false, transpose_b=true");
  check_error(run_kernel("MatMul", {tensor(dtype::float32, {3}), m23}),
              "In[0] is not a matrix. Instead it has shape [3]");
  check_error(run_kernel("MatMul", {m23, tensor(dtype::float32, {3, 1, 1})}),
              "In[1] is not a matrix. Instead it has shape [3,1,1]");
}

TEST_CASE("the kernel checks shapes that shape inference never saw") {
  const std::map<std::string, attr_value> attrs{{"T", dtype::float32}};
  check_error(run_kernel_unchecked(
                  "MatMul", {tensor(dtype::float32, {3}), tensor(dtype::float32, {3, 2})}, attrs),
              "In[0] is not a matrix. Instead it has shape [3]");
  check_error(
      run_kernel_unchecked(
          "MatMul", {tensor(dtype::float32, {2, 3}), tensor(dtype::float32, {4, 5})}, attrs),
      "matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
}

TEST_CASE("ops::mat_mul infers shapes and rejects mismatches at graph construction") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  auto w = ops::placeholder(root, dtype::float32, {.shape = partial_shape{5, 3}});
  auto y = ops::mat_mul(root.with_op_name("y"), x, w, {.transpose_b = true});
  CHECK(y.node == "y");
  CHECK(y.type == dtype::float32);
  CHECK(root.shape_of(y).to_string() == "[?,5]");
  auto unknown = ops::placeholder(root, dtype::float32);
  CHECK(root.shape_of(ops::mat_mul(root, unknown, w)).to_string() == "[?,3]");
  REQUIRE(root.ok());

  ops::mat_mul(root.with_op_name("bad"), x, w);
  check_error(root.get_status(), "node 'bad' (MatMul)");
  check_error(root.get_status(), "matrix size-incompatible: In[0]: [?,3], In[1]: [5,3]");
}
