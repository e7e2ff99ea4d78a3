// The GPU's random kernels draw the CPU's streams: uniform values bit for bit, normal ones to
// float rounding, truncated normal ones within two standard deviations.
#include "test_util/gpu_test_util.hpp"

namespace caflow::testing {
namespace {

std::map<std::string, attr_value> random_attrs(dtype t, int64_t seed, int64_t seed2) {
  return {{"dtype", t}, {"T", dtype::int32}, {"seed", seed}, {"seed2", seed2}};
}

TEST_CASE("RandomUniform on the GPU equals the CPU's bit for bit") {
  CAFLOW_REQUIRE_GPU(gpu);
  for (dtype t : {dtype::float32, dtype::float64})
    for (int64_t n : {1, 3, 4, 5, 1000, 4099}) {
      CAPTURE(n);
      check_gpu_matches_cpu(*gpu, "RandomUniform", {vec32({static_cast<int32_t>(n)})},
                            random_attrs(t, 87654321, 12345), 0);
    }
  check_gpu_matches_cpu(*gpu, "RandomUniform", {vec32({7, 0, 3})},
                        random_attrs(dtype::float32, 1, 2), 0);
  auto bad = run_gpu_kernel(*gpu, "RandomUniform", {vec32({3, -1})},
                            random_attrs(dtype::float32, 1, 2));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message().find("dims must be non-negative") != std::string::npos);
}

TEST_CASE("Consecutive steps of one GPU kernel continue the CPU's stream") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto op = op_registry::global().find("RandomUniform");
  REQUIRE(op.ok());
  node_def n;
  n.name = "steps";
  n.op = "RandomUniform";
  n.attrs = random_attrs(dtype::float32, 3, 4);
  add_default_attrs(**op, n);
  auto sig = resolve_signature(**op, n);
  REQUIRE(sig.ok());
  auto on_gpu = kernel_registry::global().create(n, *sig, *gpu);
  REQUIRE(on_gpu.ok());
  // Step 1 draws 10 values (3 blocks of 4); step 2 starts at block 3, at the CPU stream's
  // value 12, as a CPU kernel's second step would.
  auto cpu = run_kernel("RandomUniform", {vec32({16})}, random_attrs(dtype::float32, 3, 4));
  REQUIRE(cpu.ok());
  const float* stream = cpu->at(0).data<float>();
  for (int step = 0; step < 2; ++step) {
    CAPTURE(step);
    std::vector<kernel_value> in(1), out(1);
    auto shape = copy_to_gpu(*gpu, vec32({step == 0 ? 10 : 2}));
    REQUIRE(shape.ok());
    in[0].value = *shape;
    cancellation_manager cancel;
    call_frame frame;
    step_context ctx_step{1, &frame, &cancel, nullptr};
    kernel_context ctx(**on_gpu, *gpu, ctx_step, in.data(), out.data());
    (*on_gpu)->compute(ctx);
    REQUIRE_MESSAGE(ctx.ok(), ctx.get_status().to_string());
    auto host = copy_to_host(*gpu, out[0].value);
    REQUIRE(host.ok());
    const int first = step == 0 ? 0 : 12;
    for (int64_t i = 0; i < host->num_elements(); ++i)
      CHECK(host->data<float>()[i] == stream[first + i]);
  }
}

TEST_CASE("RandomStandardNormal on the GPU equals the CPU's to float rounding") {
  CAFLOW_REQUIRE_GPU(gpu);
  check_gpu_matches_cpu(*gpu, "RandomStandardNormal", {vec32({64, 33})},
                        random_attrs(dtype::float32, 5, 6), 1e-4);
  check_gpu_matches_cpu(*gpu, "RandomStandardNormal", {vec32({1001})},
                        random_attrs(dtype::float64, 5, 6), 1e-9);
}

TEST_CASE("TruncatedNormal on the GPU stays within two standard deviations") {
  CAFLOW_REQUIRE_GPU(gpu);
  auto out = run_gpu_kernel(*gpu, "TruncatedNormal", {vec32({100, 100})},
                            random_attrs(dtype::float32, 9, 10));
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const tensor& z = out->at(0);
  double sum = 0;
  for (int64_t i = 0; i < z.num_elements(); ++i) {
    CHECK(std::abs(z.data<float>()[i]) < 2.0f);
    sum += z.data<float>()[i];
  }
  CHECK(std::abs(sum / z.num_elements()) < 0.05);
  auto cpu = run_kernel("TruncatedNormal", {vec32({100, 100})}, random_attrs(dtype::float32, 9, 10));
  REQUIRE(cpu.ok());
  // The same draws: all but values at the edge of rejection agree.
  int64_t same = 0;
  for (int64_t i = 0; i < z.num_elements(); ++i)
    same += std::abs(z.data<float>()[i] - cpu->at(0).data<float>()[i]) < 1e-4f;
  CHECK(same > z.num_elements() * 99 / 100);
}

}  // namespace
}  // namespace caflow::testing
