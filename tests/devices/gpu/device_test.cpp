// The GPU device itself: enumeration, names, transfers, memory accounting and out-of-memory
// errors. Runs its checks when a GPU is visible, else each case says why it skipped.
#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

TEST_CASE("without GPUs, the enumeration says why") {
  const gpu_enumeration& found = local_gpus();
  if (found.gpus.empty()) {
    CHECK_FALSE(found.why_none.empty());
    auto made = make_local_gpu_devices({}, "worker", 1);
    REQUIRE(made.ok());
    CHECK(made->empty());
  } else {
    CHECK(found.why_none.empty());
  }
}

TEST_CASE("a memory fraction outside [0, 1] is an error") {
  auto made = make_local_gpu_devices({.per_process_gpu_memory_fraction = 1.5}, "worker", 0);
  check_error(made.get_status(), "per_process_gpu_memory_fraction must be in [0, 1], got 1.5");
}

TEST_CASE("GPUs are named /job:J/replica:0/task:T/device:GPU:k") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto made = make_local_gpu_devices({.per_process_gpu_memory_fraction = 0.05, .allow_growth = true},
                                     "worker", 3);
  REQUIRE(made.ok());
  REQUIRE(made->size() == local_gpus().gpus.size());
  for (size_t k = 0; k < made->size(); ++k) {
    CHECK((*made)[k]->name() == "/job:worker/replica:0/task:3/device:GPU:" + std::to_string(k));
    CHECK((*made)[k]->type() == "GPU");
  }
  // The fraction bounds the allocator: 5% of the total.
  const int64_t total = local_gpus().gpus[0].total_bytes;
  CHECK((*made)[0]->memory_stats().bytes_limit <= total / 20 + 1);
}

TEST_CASE("host to GPU and back round-trips every dtype, and counts memory") {
  CAFLOW_REQUIRE_GPU(gpu);
  const int64_t before = gpu->memory_stats().bytes_in_use;
  {
    const tensor f = random_tensor<float>(tensor_shape{3, 1000}, -1, 1, 1);
    auto on = copy_to_gpu(*gpu, f);
    REQUIRE(on.ok());
    CHECK(gpu->memory_stats().bytes_in_use >= before + 12000);
    CHECK(gpu->memory_stats().peak_bytes_in_use >= before + 12000);
    auto back = copy_to_host(*gpu, *on);
    REQUIRE(back.ok());
    check_tensor(*back, f, 0);
    // What came back is page-locked and goes out again with no staging copy: same bytes.
    auto again = copy_to_gpu(*gpu, *back);
    REQUIRE(again.ok());
    auto twice = copy_to_host(*gpu, *again);
    REQUIRE(twice.ok());
    CHECK_FALSE(twice->shares_buffer_with(*back));
    check_tensor(*twice, f, 0);
  }
  CHECK(gpu->memory_stats().bytes_in_use == before);
  for (const tensor& t : {tensor::from_vector<double>({1.5, -2}), tensor::from_vector<int32_t>({7}),
                          tensor::from_vector<int64_t>({1, 2, 3}), tensor::from_vector<uint8_t>({255}),
                          tensor::from_vector<bool>({true, false}), tensor::scalar<float>(3)}) {
    auto on = copy_to_gpu(*gpu, t);
    REQUIRE(on.ok());
    auto back = copy_to_host(*gpu, *on);
    REQUIRE(back.ok());
    check_tensor(*back, t, 0);
  }
  // Empty tensors cross without a copy.
  auto empty = copy_to_gpu(*gpu, tensor(dtype::float32, tensor_shape{0, 4}));
  REQUIRE(empty.ok());
  CHECK(empty->shape() == tensor_shape{0, 4});
}

TEST_CASE("a copy to the same GPU shares the tensor") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto on = copy_to_gpu(*gpu, tensor::from_vector<float>({1, 2}));
  REQUIRE(on.ok());
  auto same = copy_gpu_to_gpu(*gpu, *gpu, *on);
  REQUIRE(same.ok());
  CHECK(same->shares_buffer_with(*on));
}

TEST_CASE("virtual devices split one card: own names, own limits, copies between them") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto made = make_local_gpu_devices(
      {.visible_device_list = "0", .virtual_device_memory_mb = {64, 32}}, "worker", 0);
  REQUIRE(made.ok());
  REQUIRE(made->size() == 2);
  device& a = *(*made)[0];
  device& b = *(*made)[1];
  CHECK(a.name() == "/job:worker/replica:0/task:0/device:GPU:0");
  CHECK(b.name() == "/job:worker/replica:0/task:0/device:GPU:1");
  CHECK(a.memory_stats().bytes_limit == int64_t{64} << 20);
  CHECK(b.memory_stats().bytes_limit == int64_t{32} << 20);
  const tensor f = random_tensor<float>(tensor_shape{4, 1000}, -1, 1, 7);
  auto on_a = copy_to_gpu(a, f);
  REQUIRE(on_a.ok());
  auto on_b = copy_gpu_to_gpu(a, b, *on_a);
  REQUIRE(on_b.ok());
  CHECK_FALSE(on_b->shares_buffer_with(*on_a));
  auto back = copy_to_host(b, *on_b);
  REQUIRE(back.ok());
  check_tensor(*back, f, 0);
  // b's pool is its own: 40 MB does not fit in its 32.
  auto big = run_gpu_kernel(b, "Fill",
                            {tensor::from_vector<int64_t>({10 << 20}), tensor::scalar<float>(1)},
                            {{"T", dtype::float32}, {"index_type", dtype::int64}});
  REQUIRE_FALSE(big.ok());
  CHECK(big.get_status().code() == error_code::resource_exhausted);
  // More than the card can give is refused, naming both sizes.
  const int64_t card_mb = local_gpus().gpus[0].total_bytes >> 20;
  auto too_much = make_local_gpu_devices(
      {.visible_device_list = "0", .virtual_device_memory_mb = {card_mb, card_mb}}, "worker", 0);
  REQUIRE_FALSE(too_much.ok());
  CHECK(too_much.get_status().code() == error_code::resource_exhausted);
  CHECK(too_much.get_status().message().find("MB, but it can give") != std::string::npos);
}

TEST_CASE("running out of GPU memory names the bytes asked for and the limit") {
  CAFLOW_REQUIRE_GPU(gpu);
  const int64_t limit = gpu->memory_stats().bytes_limit;
  // One element more than the limit can hold.
  auto r = run_gpu_kernel(*gpu, "Fill",
                          {tensor::from_vector<int64_t>({limit / 4 + 1}), tensor::scalar<float>(1)},
                          {{"T", dtype::float32}, {"index_type", dtype::int64}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().code() == error_code::resource_exhausted);
  CHECK(r.get_status().message().find("asked for " + std::to_string((limit / 4 + 1) * 4) + " bytes") !=
        std::string::npos);
  CHECK(r.get_status().message().find("limit " + std::to_string(limit) + " bytes") != std::string::npos);
}

}  // namespace
}  // namespace caflow::testing
