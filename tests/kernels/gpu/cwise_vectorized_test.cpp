// The element-wise kernels' 16-byte packet paths (vectorized.cuh): lengths that leave a tail of
// every size, scalar operands, broadcasts (which stay scalar) and comparisons (bool packets).
// Operands off a packet boundary cannot be made through ops (the allocator aligns every
// buffer to 256 bytes); the launchers check alignment and fall back to one by one.
#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

template <class T>
std::map<std::string, attr_value> typed() {
  return {{"T", dtype_v<T>}};
}

TEST_CASE("packet paths with every tail length, scalars and broadcasts") {
  CAFLOW_REQUIRE_GPU(gpu);
  // float packets hold 4, double 2, bool 16: 1..17 and a long odd length cover every tail.
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 17; ++n) lengths.push_back(n);
  lengths.push_back(1000003);
  for (int64_t n : lengths) {
    CAPTURE(n);
    const tensor a = random_tensor<float>(tensor_shape{n}, -2, 2, 51);
    const tensor b = random_tensor<float>(tensor_shape{n}, 0.5, 2, 52);
    const tensor s = tensor::scalar<float>(0.25f);
    for (const char* op : {"AddV2", "Mul", "RealDiv", "Maximum"}) {
      check_gpu_matches_cpu(*gpu, op, {a, b}, typed<float>());
      check_gpu_matches_cpu(*gpu, op, {s, b}, typed<float>());
      check_gpu_matches_cpu(*gpu, op, {a, s}, typed<float>());
    }
    for (const char* op : {"Relu", "Neg", "Exp", "Square"})
      check_gpu_matches_cpu(*gpu, op, {a}, typed<float>(), 1e-5);
    check_gpu_matches_cpu(*gpu, "Greater", {a, b}, typed<float>());
    check_gpu_matches_cpu(*gpu, "ReluGrad", {a, b}, typed<float>());
    const tensor d = random_tensor<double>(tensor_shape{n}, -2, 2, 53);
    check_gpu_matches_cpu(*gpu, "Sub", {d, d}, typed<double>());
    check_gpu_matches_cpu(*gpu, "Abs", {d}, typed<double>());
    const tensor i = random_tensor<int64_t>(tensor_shape{n}, -100, 100, 54);
    check_gpu_matches_cpu(*gpu, "Minimum", {i, i}, typed<int64_t>());
  }
  // Broadcasts keep the strided kernel; odd shapes on both sides.
  const tensor m = random_tensor<float>(tensor_shape{333, 7}, -2, 2, 55);
  const tensor row = random_tensor<float>(tensor_shape{7}, -2, 2, 56);
  const tensor col = random_tensor<float>(tensor_shape{333, 1}, -2, 2, 57);
  for (const char* op : {"AddV2", "Mul", "Maximum"}) {
    check_gpu_matches_cpu(*gpu, op, {m, row}, typed<float>());
    check_gpu_matches_cpu(*gpu, op, {col, m}, typed<float>());
  }
}

}  // namespace
}  // namespace caflow::testing
