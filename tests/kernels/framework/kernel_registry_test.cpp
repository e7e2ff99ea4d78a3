#include <doctest/doctest.h>

#include "devices/cpu_device.hpp"
#include "graph/ir/graph.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;

TEST_CASE("a missing kernel is an error naming the op, the device and the dtypes") {
  cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0", {.intra_op_threads = 1, .inter_op_threads = 1});
  node_def n{"v", "AssignAdd", "", {}, {{"T", dtype::uint8}, {"use_locking", false}}};
  const op_def* op = op_registry::global().lookup("AssignAdd");
  REQUIRE(op);
  node_signature sig;  // resolve_signature would reject uint8; the registry must still explain
  auto k = kernel_registry::global().create(n, sig, dev);
  REQUIRE_FALSE(k.ok());
  const std::string msg = k.get_status().message();
  CHECK(msg.find("node 'v' (AssignAdd): no CPU kernel for op 'AssignAdd' with T=uint8") == 0);
  CHECK(msg.find("registered: T=float32, T=float64, T=int32, T=int64") != std::string::npos);
  CHECK(kernel_registry::global().has_kernel(node_def{"a", "AssignAdd", "", {}, {{"T", dtype::float32}}}, "CPU"));
  // Variables live on host-memory devices only (no GPU kernel, in CUDA builds or not).
  CHECK_FALSE(kernel_registry::global().has_kernel(node_def{"a", "AssignAdd", "", {}, {{"T", dtype::float32}}}, "GPU"));
}

TEST_CASE("kernels for any device serve every type; a type's own kernel comes first") {
  const node_def identity{"i", "Identity", "", {}, {{"T", dtype::float32}}};
  const kernel_def* cpu = kernel_registry::global().find(identity, "CPU");
  const kernel_def* other = kernel_registry::global().find(identity, "SOME_ACCELERATOR");
  REQUIRE(cpu);
  REQUIRE(other);
  CHECK(cpu->device_type == any_device);
  CHECK(other == cpu);
  // Its own memory types: Shape writes its output on the host, on any device type.
  memory_types shape = kernel_registry::global().memory_types_of(
      node_def{"s", "Shape", "", {"x"}, {{"T", dtype::float32}, {"out_type", dtype::int32}}},
      "SOME_ACCELERATOR");
  CHECK(shape.output_on_host == std::vector<bool>{true});
  CHECK(shape.input_on_host == std::vector<bool>{false});
  // An op with no kernel anywhere has no memory types.
  CHECK(kernel_registry::global()
            .memory_types_of(node_def{"n", "NoSuchOp", "", {}, {}}, "CPU")
            .input_on_host.empty());
  CHECK(kernel_registry::global().registered_types("Identity", "SOME_ACCELERATOR") == "any");
}

TEST_CASE("kernel constructor errors name the node") {
  auto r = caflow::testing::run_kernel("Const", {}, {{"value", 3}, {"dtype", dtype::int32}});
  caflow::testing::check_error(r, "attr 'value' has type int, expected tensor");
}
