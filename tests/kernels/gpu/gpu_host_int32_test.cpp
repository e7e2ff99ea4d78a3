// A GPU's int32 Add, AddV2, Sub and Mul (shape arithmetic, such as a Mean gradient's reshape
// and tile sizes) are the host's kernels with every arg in host memory, as in TF: so shape values
// never cross to the GPU and back, which would also cut a recorded step in two. Registered in
// every build, so this runs without a GPU.
#include <doctest/doctest.h>

#include "devices/device.hpp"
#include "kernels/framework/kernel_registry.hpp"

using namespace caflow;

TEST_CASE("a GPU's int32 arithmetic reads and writes host memory; other types stay on the device") {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul"}) {
    CAPTURE(op);
    node_def n{"n", op, "", {"a", "b"}, {{"T", dtype::int32}}};
    REQUIRE(kernel_registry::global().find(n, device_gpu) != nullptr);
    const memory_types m = kernel_registry::global().memory_types_of(n, device_gpu);
    CHECK(m.input_on_host == std::vector<bool>{true, true});
    CHECK(m.output_on_host == std::vector<bool>{true});
    n.attrs["T"] = dtype::float32;
    const memory_types f = kernel_registry::global().memory_types_of(n, device_gpu);
    CHECK(f.input_on_host.empty());
    CHECK(f.output_on_host.empty());
  }
}
