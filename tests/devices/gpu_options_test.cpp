// TF's GPUOptions as caflow reads them: visible_device_list parsing and the checks a task's
// device options pass before any device is made. Every bad value names itself.
#include <doctest/doctest.h>

#include "devices/device_factory.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

TEST_CASE("visible_device_list picks and orders GPUs, and names a bad entry") {
  auto all = parse_visible_device_list("", 3);
  REQUIRE(all.ok());
  CHECK(*all == std::vector<int>{0, 1, 2});
  auto picked = parse_visible_device_list("2,0", 3);
  REQUIRE(picked.ok());
  CHECK(*picked == std::vector<int>{2, 0});
  check_error(parse_visible_device_list("0,x", 2), "visible_device_list '0,x': 'x' is not a GPU index");
  check_error(parse_visible_device_list("0,,1", 2), "'' is not a GPU index");
  check_error(parse_visible_device_list("-1", 2), "'-1' is not a GPU index");
  check_error(parse_visible_device_list("3", 2),
              "visible_device_list '3' names GPU 3, but this process sees 2 GPUs");
  check_error(parse_visible_device_list("1,1", 2), "visible_device_list '1,1' names GPU 1 twice");
}

TEST_CASE("a task's device options are checked before any device is made") {
  const device_registry& r = device_registry::global();
  CHECK(r.validate({}).ok());
  device_options fraction;
  fraction.gpu.per_process_gpu_memory_fraction = 1.5;
  check_error(r.validate(fraction), "per_process_gpu_memory_fraction must be in [0, 1], got 1.5");
  device_options unknown;
  unknown.device_count["TPU"] = 1;
  check_error(r.validate(unknown), "device_count names the device type 'TPU'");
  device_options negative;
  negative.device_count["GPU"] = -1;
  check_error(r.validate(negative), "device_count for GPU is -1; it must be >= 0");
  device_options beyond;
  beyond.gpu.visible_device_list = "7";
  check_error(r.validate(beyond), "names GPU 7");
  // A server refuses them at start, naming the option.
  check_error(r.make_task_devices(fraction, "worker", 0).get_status(),
              "per_process_gpu_memory_fraction");
}
