#pragma once
// Running one kernel on a GPU and comparing it with the CPU kernel, for the tests under
// tests/kernels/gpu/ and tests/devices/gpu/.
// Every test case starts with CAFLOW_REQUIRE_GPU(dev): with no visible GPU (or a build without
// CUDA) it prints one MESSAGE saying why and returns, since doctest has no skip.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "devices/gpu_devices.hpp"
#include "graph/ir/attr_value.hpp"
#include "graph/ir/op_def.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/random_tensor.hpp"

namespace caflow::testing {

// The first GPU, made once per test binary with growth on (tests take little memory).
inline device* test_gpu() {
  static std::vector<std::unique_ptr<device>> gpus = [] {
    auto made = make_local_gpu_devices({.allow_growth = true}, "localhost", 0);
    return made.ok() ? std::move(made).value() : std::vector<std::unique_ptr<device>>{};
  }();
  return gpus.empty() ? nullptr : gpus.front().get();
}

#define CAFLOW_REQUIRE_GPU(dev)                                                 \
  ::caflow::device* dev = ::caflow::testing::test_gpu();                        \
  if (dev == nullptr) {                                                         \
    MESSAGE("skipped, no GPU: " << ::caflow::local_gpus().why_none);            \
    return;                                                                     \
  }

// Runs `op` on `gpu`: inputs are copied to the GPU (but those the kernel reads in host memory,
// as in a graph), outputs back. Type attrs must be given (nothing is inferred), defaults are
// added.
inline status_or<std::vector<tensor>> run_gpu_kernel(device& gpu, const std::string& op_name,
                                                     const std::vector<tensor>& inputs,
                                                     std::map<std::string, attr_value> attrs) {
  CAFLOW_ASSIGN_OR_RETURN(const op_def* op, op_registry::global().find(op_name));
  node_def n;
  n.name = "gpu_" + op_name;
  n.op = op_name;
  n.attrs = std::move(attrs);
  add_default_attrs(*op, n);
  CAFLOW_ASSIGN_OR_RETURN(node_signature sig, resolve_signature(*op, n));
  CAFLOW_ASSIGN_OR_RETURN(auto kernel, kernel_registry::global().create(n, sig, gpu));
  std::vector<kernel_value> in(inputs.size()), out(sig.output_types.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (kernel->input_on_host(static_cast<int>(i))) {
      in[i].value = inputs[i];
      continue;
    }
    CAFLOW_ASSIGN_OR_RETURN(in[i].value, copy_to_gpu(gpu, inputs[i]));
  }
  cancellation_manager cancel;
  call_frame frame;
  step_context step{1, &frame, &cancel, nullptr};
  kernel_context ctx(*kernel, gpu, step, in.data(), out.data());
  kernel->compute(ctx);
  if (!ctx.ok()) return ctx.get_status().with_context(describe_node(n));
  std::vector<tensor> result;
  for (kernel_value& v : out) {
    CAFLOW_ASSIGN_OR_RETURN(tensor host, copy_to_host(gpu, v.value));
    result.push_back(std::move(host));
  }
  return result;
}

// Runs `op` on the CPU and on the GPU with the same inputs and checks every output matches.
inline void check_gpu_matches_cpu(device& gpu, const std::string& op,
                                  const std::vector<tensor>& inputs,
                                  const std::map<std::string, attr_value>& attrs,
                                  double tol = 1e-5) {
  CAPTURE(op);
  auto cpu = run_kernel(op, inputs, attrs);
  REQUIRE_MESSAGE(cpu.ok(), cpu.get_status().to_string());
  auto on_gpu = run_gpu_kernel(gpu, op, inputs, attrs);
  REQUIRE_MESSAGE(on_gpu.ok(), on_gpu.get_status().to_string());
  REQUIRE(on_gpu->size() == cpu->size());
  for (size_t i = 0; i < cpu->size(); ++i) check_tensor((*on_gpu)[i], (*cpu)[i], tol);
}

}  // namespace caflow::testing
