// Reductions, MatMul and the nn kernels on the GPU against their CPU kernels on random inputs.
#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

std::map<std::string, attr_value> reduce_attrs(dtype t, bool keep_dims) {
  return {{"T", t}, {"Tidx", dtype::int32}, {"keep_dims", keep_dims}};
}

TEST_CASE("Sum, Mean and Max over any axes") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor x = random_tensor<float>(tensor_shape{4, 5, 6, 3}, -2, 2, 31);
  const tensor i = random_tensor<int32_t>(tensor_shape{4, 5, 6}, -50, 50, 32);
  const std::vector<std::vector<int32_t>> axes = {{}, {0}, {3}, {1}, {1, 2}, {0, 2}, {-1, 0}, {0, 1, 2, 3}};
  for (const char* op : {"Sum", "Mean", "Max"}) {
    for (const auto& a : axes) {
      for (bool keep : {false, true}) {
        CAPTURE(a.size());
        check_gpu_matches_cpu(*gpu, op, {x, vec32(a)}, reduce_attrs(dtype::float32, keep), 1e-4);
      }
    }
    check_gpu_matches_cpu(*gpu, op, {i, vec32({1})}, reduce_attrs(dtype::int32, false));
    check_gpu_matches_cpu(*gpu, op, {i, vec32({0, 2})}, reduce_attrs(dtype::int32, true));
  }
  // A long row takes the block-reduction path.
  const tensor big = random_tensor<double>(tensor_shape{3, 100000}, -1, 1, 33);
  check_gpu_matches_cpu(*gpu, "Sum", {big, vec32({1})}, reduce_attrs(dtype::float64, false), 1e-9);
  // Empty inputs.
  const tensor empty(dtype::float32, tensor_shape{0, 3});
  for (const char* op : {"Sum", "Mean", "Max"})
    check_gpu_matches_cpu(*gpu, op, {empty, vec32({0})}, reduce_attrs(dtype::float32, false));
  auto bad = run_gpu_kernel(*gpu, "Sum", {x, vec32({4})}, reduce_attrs(dtype::float32, false));
  REQUIRE_FALSE(bad.ok());
}

TEST_CASE("ArgMax along each dimension") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor x = random_tensor<float>(tensor_shape{3, 7, 4}, -5, 5, 34);
  for (int d : {0, 1, 2, -1})
    for (dtype out : {dtype::int32, dtype::int64})
      check_gpu_matches_cpu(*gpu, "ArgMax", {x, tensor::scalar<int32_t>(d)},
                            {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"output_type", out}});
  auto bad = run_gpu_kernel(*gpu, "ArgMax", {x, tensor::scalar<int32_t>(3)},
                            {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"output_type", dtype::int64}});
  check_error(bad.get_status(), "dimension 3 is out of range for input of rank 3");
}

TEST_CASE("MatMul through cuBLAS with every transpose") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor a = random_tensor<float>(tensor_shape{33, 17}, -1, 1, 35);
  const tensor at = random_tensor<float>(tensor_shape{17, 33}, -1, 1, 36);
  const tensor b = random_tensor<float>(tensor_shape{17, 9}, -1, 1, 37);
  const tensor bt = random_tensor<float>(tensor_shape{9, 17}, -1, 1, 38);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      check_gpu_matches_cpu(*gpu, "MatMul", {ta ? at : a, tb ? bt : b},
                            {{"T", dtype::float32}, {"transpose_a", ta}, {"transpose_b", tb}}, 1e-4);
  const tensor d = random_tensor<double>(tensor_shape{64, 128}, -1, 1, 39);
  const tensor e = random_tensor<double>(tensor_shape{128, 32}, -1, 1, 40);
  check_gpu_matches_cpu(*gpu, "MatMul", {d, e}, {{"T", dtype::float64}}, 1e-10);
  // k == 0 gives zeros.
  check_gpu_matches_cpu(*gpu, "MatMul",
                        {tensor(dtype::float32, tensor_shape{2, 0}), tensor(dtype::float32, tensor_shape{0, 3})},
                        {{"T", dtype::float32}});
  auto bad = run_gpu_kernel(*gpu, "MatMul", {a, a}, {{"T", dtype::float32}});
  check_error(bad.get_status(), "matrix size-incompatible");
}

TEST_CASE("BiasAdd and BiasAddGrad") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor x = random_tensor<float>(tensor_shape{6, 5, 5, 8}, -1, 1, 41);
  const tensor b = random_tensor<float>(tensor_shape{8}, -1, 1, 42);
  check_gpu_matches_cpu(*gpu, "BiasAdd", {x, b}, {{"T", dtype::float32}});
  check_gpu_matches_cpu(*gpu, "BiasAddGrad", {x}, {{"T", dtype::float32}}, 1e-4);
  const tensor m = random_tensor<double>(tensor_shape{100, 10}, -1, 1, 43);
  check_gpu_matches_cpu(*gpu, "BiasAddGrad", {m}, {{"T", dtype::float64}}, 1e-10);
  auto bad = run_gpu_kernel(*gpu, "BiasAdd", {x, tensor::from_vector<float>({1, 2})}, {{"T", dtype::float32}});
  check_error(bad.get_status(), "must be a vector as long as the last dimension");
}

TEST_CASE("Softmax, LogSoftmax and the cross-entropy losses") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor logits = random_tensor<float>(tensor_shape{16, 10}, -8, 8, 44);
  check_gpu_matches_cpu(*gpu, "Softmax", {logits}, {{"T", dtype::float32}});
  check_gpu_matches_cpu(*gpu, "LogSoftmax", {logits}, {{"T", dtype::float32}});
  // Rows wider than a block.
  const tensor wide = random_tensor<double>(tensor_shape{3, 1000}, -4, 4, 45);
  check_gpu_matches_cpu(*gpu, "Softmax", {wide}, {{"T", dtype::float64}}, 1e-10);
  // Labels: a probability row each.
  tensor labels = random_tensor<float>(tensor_shape{16, 10}, 0, 1, 46);
  for (int64_t r = 0; r < 16; ++r) {
    float s = 0;
    for (int64_t j = 0; j < 10; ++j) s += labels.data<float>()[r * 10 + j];
    for (int64_t j = 0; j < 10; ++j) labels.data<float>()[r * 10 + j] /= s;
  }
  check_gpu_matches_cpu(*gpu, "SoftmaxCrossEntropyWithLogits", {logits, labels}, {{"T", dtype::float32}}, 1e-4);
  std::vector<int32_t> classes(16);
  for (int r = 0; r < 16; ++r) classes[r] = (r * 7) % 10;
  check_gpu_matches_cpu(*gpu, "SparseSoftmaxCrossEntropyWithLogits",
                        {logits, tensor::from_vector<int32_t>(classes)},
                        {{"T", dtype::float32}, {"Tlabels", dtype::int32}}, 1e-4);
}

}  // namespace
}  // namespace caflow::testing
