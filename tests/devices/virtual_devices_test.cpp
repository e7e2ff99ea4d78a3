// TF's virtual GPU list as flags give it (--gpu-virtual-devices): counts and sizes in MB, every
// malformed form refused naming what is wrong, and the flag written back.
#include <doctest/doctest.h>

#include "devices/gpu_devices.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

TEST_CASE("virtual devices: COUNTxMB, plain MB and mixes of both") {
  using list = std::vector<int64_t>;
  CHECK(*parse_virtual_devices("") == list{});
  CHECK(*parse_virtual_devices("4096") == list{4096});
  CHECK(*parse_virtual_devices("2x4096") == list{4096, 4096});
  CHECK(*parse_virtual_devices("4096,2048") == list{4096, 2048});
  CHECK(*parse_virtual_devices("2x4096,1024,3x1") == list{4096, 4096, 1024, 1, 1, 1});
  CHECK(parse_virtual_devices("64x1")->size() == 64);
  CHECK(virtual_devices_flag({4096, 4096, 1024, 1, 1, 1}) == "2x4096,1024,3x1");
  CHECK(virtual_devices_flag({}) == "");
  CHECK(*parse_virtual_devices(virtual_devices_flag({7, 7, 3, 7})) == list{7, 7, 3, 7});

  gpu_options opts;
  CHECK(logical_devices_per_gpu(opts) == 1);
  opts.virtual_device_memory_mb = {1024, 1024, 512};
  CHECK(logical_devices_per_gpu(opts) == 3);
}

TEST_CASE("virtual devices: malformed lists are refused, quoting the list and the part") {
  for (const char* bad : {"x", "2x", "x4096", "0x4096", "2x0", "-1", "4096,", ",4096", "2y4096",
                          "2x4096x2", "1.5", "4096 "})
    check_error(parse_virtual_devices(bad),
                std::string("virtual devices '") + bad + "': '");
  check_error(parse_virtual_devices("2x4096,abc"),
              "virtual devices '2x4096,abc': 'abc' is not MB or COUNTxMB (e.g. 2x4096)");
  check_error(parse_virtual_devices("65x1"), "virtual devices '65x1': more than 64 devices per GPU");
  check_error(parse_virtual_devices("60x1,5x1"), "more than 64 devices per GPU");
  check_error(parse_virtual_devices("2x2000000"),
              "'2x2000000': virtual devices: 2000000 MB is not a device size (1 to 1048576 MB)");
  check_error(parse_virtual_devices("99999999999999999999"), "is not MB or COUNTxMB");
}
