#include <doctest/doctest.h>

#include "devices/cpu_device.hpp"
#include "graph/ir/graph.hpp"
#include "kernels/kernel_registry.hpp"
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
  CHECK(kernel_registry::global().has_kernel(node_def{"i", "Identity", "", {}, {{"T", dtype::float32}}}, "CPU"));
  CHECK_FALSE(kernel_registry::global().has_kernel(node_def{"i", "Identity", "", {}, {{"T", dtype::float32}}}, "GPU"));
}

TEST_CASE("kernel constructor errors name the node") {
  auto r = caflow::testing::run_kernel("Const", {}, {{"value", 3}, {"dtype", dtype::int32}});
  caflow::testing::check_error(r, "attr 'value' has type int, expected tensor");
}
