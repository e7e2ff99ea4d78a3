// Element-wise GPU kernels against their CPU kernels on random inputs.
#include "test_util/gpu_test_util.hpp"

#include <limits>

namespace caflow::testing {
namespace {

template <class T>
std::map<std::string, attr_value> typed() {
  return {{"T", dtype_v<T>}};
}

TEST_CASE("binary arithmetic, same shapes and broadcast") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor a = random_tensor<float>(tensor_shape{4, 3, 5}, -2, 2, 1);
  const tensor b = random_tensor<float>(tensor_shape{4, 3, 5}, 0.5, 2, 2);
  const tensor row = random_tensor<float>(tensor_shape{5}, 0.5, 2, 3);
  const tensor col = random_tensor<float>(tensor_shape{4, 1, 1}, 0.5, 2, 4);
  const tensor mid = random_tensor<float>(tensor_shape{1, 3, 1}, 0.5, 2, 5);
  const tensor s = tensor::scalar<float>(1.5f);
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow"}) {
    // Pow of negative bases is NaN on both sides: positive bases only.
    const tensor& x = std::string(op) == "Pow" ? b : a;
    for (const tensor& y : {b, row, col, mid, s}) check_gpu_matches_cpu(*gpu, op, {x, y}, typed<float>());
    check_gpu_matches_cpu(*gpu, op, {s, b}, typed<float>());
    check_gpu_matches_cpu(*gpu, op, {col, mid}, typed<float>());  // both sides broadcast
  }
}

TEST_CASE("binary arithmetic on doubles and integers") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor d1 = random_tensor<double>(tensor_shape{7, 9}, -3, 3, 6);
  const tensor d2 = random_tensor<double>(tensor_shape{9}, 1, 3, 7);
  const tensor i1 = random_tensor<int32_t>(tensor_shape{6, 4}, -100, 100, 8);
  const tensor i2 = random_tensor<int32_t>(tensor_shape{6, 1}, -100, 100, 9);
  const tensor l1 = random_tensor<int64_t>(tensor_shape{2, 3}, -1000, 1000, 10);
  for (const char* op : {"Add", "Sub", "Mul", "Maximum", "Minimum"}) {
    check_gpu_matches_cpu(*gpu, op, {d1, d2}, typed<double>());
    check_gpu_matches_cpu(*gpu, op, {i1, i2}, typed<int32_t>());
    check_gpu_matches_cpu(*gpu, op, {l1, l1}, typed<int64_t>());
  }
  check_gpu_matches_cpu(*gpu, "RealDiv", {d1, d2}, typed<double>());
}

TEST_CASE("comparisons give bool") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor a = random_tensor<int32_t>(tensor_shape{5, 6}, -3, 3, 11);
  const tensor b = random_tensor<int32_t>(tensor_shape{6}, -3, 3, 12);
  const tensor f = random_tensor<float>(tensor_shape{5, 6}, -1, 1, 13);
  for (const char* op : {"Equal", "Greater", "Less"}) {
    check_gpu_matches_cpu(*gpu, op, {a, b}, typed<int32_t>());
    check_gpu_matches_cpu(*gpu, op, {f, f}, typed<float>());
  }
  // Equal without the shape error gives a scalar false, as on the CPU.
  check_gpu_matches_cpu(*gpu, "Equal", {a, tensor::from_vector<int32_t>({1, 2})},
                        {{"T", dtype::int32}, {"incompatible_shape_error", false}});
}

TEST_CASE("shapes that cannot broadcast are an error naming both") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto r = run_gpu_kernel(*gpu, "Add",
                          {tensor::from_vector<float>({1, 2, 3}), tensor::from_vector<float>({1, 2})},
                          typed<float>());
  check_error(r.get_status(), "[3]");
  check_error(r.get_status(), "[2]");
}

TEST_CASE("unary math and activations") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor x = random_tensor<float>(tensor_shape{3, 17}, -4, 4, 14);
  const tensor pos = random_tensor<float>(tensor_shape{3, 17}, 0.1, 4, 15);
  for (const char* op : {"Neg", "Abs", "Sign", "Square", "Floor", "Relu", "Sigmoid", "Tanh", "Exp"})
    check_gpu_matches_cpu(*gpu, op, {x}, typed<float>());
  for (const char* op : {"Sqrt", "Rsqrt", "Log", "Reciprocal"})
    check_gpu_matches_cpu(*gpu, op, {pos}, typed<float>());
  const tensor i = random_tensor<int64_t>(tensor_shape{10}, -50, 50, 16);
  for (const char* op : {"Neg", "Abs", "Sign", "Square", "Relu"})
    check_gpu_matches_cpu(*gpu, op, {i}, typed<int64_t>());
  const tensor d = random_tensor<double>(tensor_shape{4, 4}, -2, 2, 17);
  check_gpu_matches_cpu(*gpu, "Tanh", {d}, typed<double>());
  // Scalars and empty tensors.
  check_gpu_matches_cpu(*gpu, "Relu", {tensor::scalar<float>(-2)}, typed<float>());
  check_gpu_matches_cpu(*gpu, "Exp", {tensor(dtype::float32, tensor_shape{0, 3})}, typed<float>());
}

TEST_CASE("activation gradients") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor g = random_tensor<float>(tensor_shape{8, 5}, -1, 1, 18);
  const tensor x = random_tensor<float>(tensor_shape{8, 5}, -1, 1, 19);
  const tensor y = random_tensor<float>(tensor_shape{8, 5}, 0, 1, 20);
  check_gpu_matches_cpu(*gpu, "ReluGrad", {g, x}, typed<float>());
  check_gpu_matches_cpu(*gpu, "SigmoidGrad", {y, g}, typed<float>());
  check_gpu_matches_cpu(*gpu, "TanhGrad", {y, g}, typed<float>());
}

TEST_CASE("Cast between every dtype pair") {
  CAFLOW_REQUIRE_GPU(gpu);
  // Out-of-range and NaN values: the GPU saturates as the CPU does.
  const tensor f = tensor::from_vector<float>({-1e20f, -3.7f, -0.5f, 0, 0.5f, 2.9f, 300.f, 1e20f,
                                               std::numeric_limits<float>::quiet_NaN()});
  const std::vector<tensor> sources = {
      f, tensor::from_vector<double>({-2.5, 0, 7.25}), tensor::from_vector<int32_t>({-7, 0, 300}),
      tensor::from_vector<int64_t>({-1, 0, int64_t{1} << 40}), tensor::from_vector<uint8_t>({0, 1, 255}),
      tensor::from_vector<bool>({true, false})};
  for (const tensor& src : sources)
    for (dtype dst : {dtype::float32, dtype::float64, dtype::int32, dtype::int64, dtype::uint8, dtype::boolean}) {
      CAPTURE(dtype_name(src.type()));
      CAPTURE(dtype_name(dst));
      check_gpu_matches_cpu(*gpu, "Cast", {src}, {{"SrcT", src.type()}, {"DstT", dst}});
    }
}

TEST_CASE("Fill, ZerosLike, OnesLike and Reshape") {
  CAFLOW_REQUIRE_GPU(gpu);
  check_gpu_matches_cpu(*gpu, "Fill", {vec32({2, 3}), tensor::scalar<float>(2.5f)},
                        {{"T", dtype::float32}, {"index_type", dtype::int32}});
  check_gpu_matches_cpu(*gpu, "Fill", {tensor::from_vector<int64_t>({4}), tensor::scalar<int64_t>(-9)},
                        {{"T", dtype::int64}, {"index_type", dtype::int64}});
  check_gpu_matches_cpu(*gpu, "Fill", {vec32({0, 3}), tensor::scalar<bool>(true)},
                        {{"T", dtype::boolean}, {"index_type", dtype::int32}});
  auto bad = run_gpu_kernel(*gpu, "Fill", {vec32({2, -1}), tensor::scalar<float>(1)},
                            {{"T", dtype::float32}, {"index_type", dtype::int32}});
  check_error(bad.get_status(), "dims [2,-1]");
  const tensor x = random_tensor<int32_t>(tensor_shape{2, 3}, -9, 9, 21);
  check_gpu_matches_cpu(*gpu, "ZerosLike", {x}, typed<int32_t>());
  check_gpu_matches_cpu(*gpu, "OnesLike", {x}, typed<int32_t>());
  check_gpu_matches_cpu(*gpu, "Reshape", {x, vec32({3, -1})}, {{"T", dtype::int32}, {"Tshape", dtype::int32}});
  auto wrong = run_gpu_kernel(*gpu, "Reshape", {x, vec32({4, -1})},
                              {{"T", dtype::int32}, {"Tshape", dtype::int32}});
  REQUIRE_FALSE(wrong.ok());
}

}  // namespace
}  // namespace caflow::testing
