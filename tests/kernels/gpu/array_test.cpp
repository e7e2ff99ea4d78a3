// Select, AddN and Tile on the GPU against their CPU kernels.
#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

tensor bools(const tensor_shape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<bool> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = (gen() & 1) != 0;
  tensor t = tensor::allocate(default_allocator(), dtype::boolean, shape).value();
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

TEST_CASE("Select per element, per row and with one condition") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor_shape shape{6, 5, 3};
  const tensor t = random_tensor<float>(shape, -1, 1, 71);
  const tensor e = random_tensor<float>(shape, -1, 1, 72);
  const std::map<std::string, attr_value> attrs{{"T", dtype::float32}};
  check_gpu_matches_cpu(*gpu, "Select", {bools(shape, 73), t, e}, attrs);
  check_gpu_matches_cpu(*gpu, "Select", {bools(tensor_shape{6}, 74), t, e}, attrs);
  for (bool c : {true, false})
    check_gpu_matches_cpu(*gpu, "Select", {tensor::scalar<bool>(c), t, e}, attrs);
  auto bad = run_gpu_kernel(*gpu, "Select", {bools(tensor_shape{5}, 75), t, e}, attrs);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message().find("as long as its first dimension") != std::string::npos);
}

TEST_CASE("AddN of one, two and more than eight inputs") {
  CAFLOW_REQUIRE_GPU(gpu);
  std::vector<tensor> in;
  for (uint32_t k = 0; k < 11; ++k) in.push_back(random_tensor<float>(tensor_shape{7, 9}, -1, 1, 80 + k));
  for (size_t n : {size_t{1}, size_t{2}, size_t{8}, size_t{11}}) {
    CAPTURE(n);
    std::vector<tensor> some(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
    check_gpu_matches_cpu(*gpu, "AddN", some,
                          {{"T", dtype::float32}, {"N", static_cast<int64_t>(n)}}, 1e-5);
  }
  auto bad = run_gpu_kernel(*gpu, "AddN", {in[0], random_tensor<float>(tensor_shape{9, 7}, -1, 1, 99)},
                            {{"T", dtype::float32}, {"N", int64_t{2}}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message().find("same shape") != std::string::npos);
}

TEST_CASE("Tile along every dimension, none, and with a zero multiple") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor x = random_tensor<float>(tensor_shape{3, 1, 4}, -1, 1, 90);
  const std::map<std::string, attr_value> attrs{{"T", dtype::float32}, {"Tmultiples", dtype::int32}};
  for (const auto& m : std::vector<std::vector<int32_t>>{{1, 1, 1}, {2, 5, 1}, {1, 3, 2}, {4, 2, 3}, {0, 2, 1}})
    check_gpu_matches_cpu(*gpu, "Tile", {x, vec32(m)}, attrs);
  auto bad = run_gpu_kernel(*gpu, "Tile", {x, vec32({1, -1, 1})}, attrs);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message().find("negative") != std::string::npos);
}

}  // namespace
}  // namespace caflow::testing
