// What the GPU kernels set up once per shape and reuse: the plan cache itself (host code, runs
// without a GPU), and Conv2D (cuDNN's measured algorithm) and MatMul (cuBLASLt's plan and
// workspace) run twice through one kernel instance, the second time from the cache, each
// against the CPU kernel.
#include "test_util/gpu_test_util.hpp"

#ifdef CAFLOW_HAVE_CUDA
#include "kernels/gpu/plan_cache.hpp"
#endif

namespace caflow::testing {
namespace {

using attr_map = std::map<std::string, attr_value>;

#ifdef CAFLOW_HAVE_CUDA
TEST_CASE("a plan is made once per key, kept while held, and the oldest dropped past the limit") {
  using cache = gpu::plan_cache<int, std::string>;
  cache c;
  int makes = 0;
  auto make = [&](int k) {
    return [&makes, k]() -> status_or<std::string> {
      ++makes;
      return "plan " + std::to_string(k);
    };
  };
  auto first = c.get(1, make(1));
  REQUIRE(first.ok());
  CHECK(**first == "plan 1");
  auto again = c.get(1, make(1));
  REQUIRE(again.ok());
  CHECK(again->get() == first->get());  // the same plan, not a copy
  CHECK(makes == 1);
  CHECK(c.plans_made() == 1);
  // A failure is returned and not kept.
  auto failed = c.get(2, [] { return status_or<std::string>(errors::internal("no algorithm")); });
  CHECK_FALSE(failed.ok());
  CHECK(c.plans_made() == 1);
  // Past the limit the oldest goes; a holder keeps its plan alive.
  for (int k = 2; k < 2 + static_cast<int>(cache::max_entries); ++k) REQUIRE(c.get(k, make(k)).ok());
  CHECK(**first == "plan 1");
  makes = 0;
  REQUIRE(c.get(1, make(1)).ok());
  CHECK(makes == 1);  // key 1 had been dropped
}
#endif

// Runs one kernel instance on `inputs` twice; both runs must match the CPU.
void check_twice(device& gpu, const std::string& op_name, const std::vector<tensor>& inputs,
                 attr_map attrs, double tol) {
  CAPTURE(op_name);
  auto cpu = run_kernel(op_name, inputs, attrs);
  REQUIRE_MESSAGE(cpu.ok(), cpu.get_status().to_string());
  auto op = op_registry::global().find(op_name);
  REQUIRE(op.ok());
  node_def n;
  n.name = "twice_" + op_name;
  n.op = op_name;
  n.attrs = std::move(attrs);
  add_default_attrs(**op, n);
  auto sig = resolve_signature(**op, n);
  REQUIRE(sig.ok());
  auto kernel = kernel_registry::global().create(n, *sig, gpu);
  REQUIRE_MESSAGE(kernel.ok(), kernel.get_status().to_string());
  std::vector<kernel_value> in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto t = copy_to_gpu(gpu, inputs[i]);
    REQUIRE(t.ok());
    in[i].value = std::move(t).value();
  }
  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    std::vector<kernel_value> out(sig->output_types.size());
    cancellation_manager cancel;
    call_frame frame;
    step_context step{1, &frame, &cancel, nullptr};
    kernel_context ctx(**kernel, gpu, step, in.data(), out.data());
    (*kernel)->compute(ctx);
    REQUIRE_MESSAGE(ctx.ok(), ctx.get_status().to_string());
    auto host = copy_to_host(gpu, out[0].value);
    REQUIRE(host.ok());
    check_tensor(*host, cpu->at(0), tol);
  }
}

tensor sizes_of(const tensor_shape& s) {
  std::vector<int32_t> v;
  for (int i = 0; i < s.rank(); ++i) v.push_back(static_cast<int32_t>(s.dim(i)));
  return vec32(v);
}

TEST_CASE("Conv2D and its backprops with the measured algorithm, then from the cache") {
  CAFLOW_REQUIRE_GPU(gpu);
  const attr_map attrs = {{"T", dtype::float32},
                          {"strides", std::vector<int>{1, 1, 1, 1}},
                          {"padding", "SAME"}};
  // The CNN's second layer and a wide 3x3 one (where cuDNN offers the most algorithms).
  struct layer {
    tensor_shape x, w;
  };
  for (const layer& l : {layer{{20, 14, 14, 32}, {5, 5, 32, 64}}, layer{{8, 14, 14, 128}, {3, 3, 128, 128}}}) {
    CAPTURE(l.x.to_string());
    const tensor x = random_tensor<float>(l.x, -1, 1, 61);
    const tensor w = random_tensor<float>(l.w, -1, 1, 62);
    const tensor dy = random_tensor<float>(tensor_shape{l.x.dim(0), l.x.dim(1), l.x.dim(2), l.w.dim(3)},
                                           -1, 1, 63);
    check_twice(*gpu, "Conv2D", {x, w}, attrs, 1e-4);
    check_twice(*gpu, "Conv2DBackpropInput", {sizes_of(l.x), w, dy}, attrs, 1e-4);
    check_twice(*gpu, "Conv2DBackpropFilter", {x, sizes_of(l.w), dy}, attrs, 1e-3);
  }
}

TEST_CASE("MatMul through cuBLASLt with its workspace, then from the cache") {
  CAFLOW_REQUIRE_GPU(gpu);
  const tensor a = random_tensor<float>(tensor_shape{257, 129}, -1, 1, 64);
  const tensor at = random_tensor<float>(tensor_shape{129, 257}, -1, 1, 65);
  const tensor b = random_tensor<float>(tensor_shape{129, 65}, -1, 1, 66);
  const tensor bt = random_tensor<float>(tensor_shape{65, 129}, -1, 1, 67);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      check_twice(*gpu, "MatMul", {ta ? at : a, tb ? bt : b},
                  {{"T", dtype::float32}, {"transpose_a", ta}, {"transpose_b", tb}}, 1e-4);
  // Square and long-k products, where split-K kernels (which need the workspace) are likely.
  const tensor s = random_tensor<float>(tensor_shape{512, 512}, -1, 1, 68);
  check_twice(*gpu, "MatMul", {s, s}, {{"T", dtype::float32}}, 1e-4);
  const tensor wide = random_tensor<float>(tensor_shape{64, 16384}, -1, 1, 69);
  const tensor tall = random_tensor<float>(tensor_shape{16384, 64}, -1, 1, 70);
  check_twice(*gpu, "MatMul", {wide, tall}, {{"T", dtype::float32}}, 1e-3);
  const tensor d = random_tensor<double>(tensor_shape{300, 200}, -1, 1, 71);
  const tensor e = random_tensor<double>(tensor_shape{200, 100}, -1, 1, 72);
  check_twice(*gpu, "MatMul", {d, e}, {{"T", dtype::float64}}, 1e-9);
}

}  // namespace
}  // namespace caflow::testing
