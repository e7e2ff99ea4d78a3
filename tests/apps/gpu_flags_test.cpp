// The GPU flags of caflow-server and caflow-train: a bad value is a one-line error naming the
// flag, before anything serves or trains; --device gpu without a visible GPU says why.
#include <doctest/doctest.h>

#include "devices/gpu_devices.hpp"
#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;

namespace {

// Runs `argv` to its end; returns its exit code and leaves its output in `out`.
int run(std::vector<std::string> argv, std::string* out) {
  child_process p(std::move(argv));
  const int rc = exit_code(p, 30s);
  *out = p.output();
  return rc;
}

}  // namespace

TEST_CASE("caflow-server refuses bad GPU flags, naming the flag") {
  const std::vector<std::string> base{CAFLOW_SERVER_BINARY, "--insecure", "--cluster", "worker=127.0.0.1:1",
                                      "--job", "worker", "--task", "0"};
  struct bad_flag {
    std::vector<std::string> flag;
    std::string says;
  };
  for (const auto& [flag, says] : std::vector<bad_flag>{
           {{"--gpu-memory-fraction", "1.5"}, "--gpu-memory-fraction takes a number in (0, 1], got '1.5'"},
           {{"--gpu-memory-fraction", "x"}, "--gpu-memory-fraction takes a number in (0, 1], got 'x'"},
           {{"--gpu-allow-growth", "yes"}, "--gpu-allow-growth takes 0 or 1, got 'yes'"},
           {{"--gpu-graphs", "on"}, "--gpu-graphs takes 0 or 1, got 'on'"},
           {{"--num-gpus", "-1"}, "--num-gpus takes a non-negative integer, got '-1'"},
           {{"--gpu-visible-devices", "x"}, "visible_device_list 'x': 'x' is not a GPU index"},
           {{"--gpu-virtual-devices", "2x"},
            "--gpu-virtual-devices: virtual devices '2x': '2x' is not MB or COUNTxMB"},
           {{"--gpu-virtual-devices", "0x512"}, "virtual devices '0x512': '0x512' is not MB"}}) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), flag.begin(), flag.end());
    std::string out;
    CAPTURE(flag[0]);
    CHECK(run(argv, &out) != 0);
    CHECK_MESSAGE(out.find(says) != std::string::npos, out);
  }
}

TEST_CASE("caflow-train: --device gpu without a visible GPU says why; a bad --device is refused") {
  std::string out;
  CHECK(run({CAFLOW_TRAIN_BINARY, "--device", "tpu"}, &out) != 0);
  CHECK_MESSAGE(out.find("--device") != std::string::npos, out);
  CHECK(run({CAFLOW_TRAIN_BINARY, "--gpu-graphs", "maybe"}, &out) != 0);
  CHECK_MESSAGE(out.find("--gpu-graphs") != std::string::npos, out);
  if (!caflow::local_gpus().gpus.empty()) {
    MESSAGE("a GPU is visible: the no-GPU case is not tested here");
    return;
  }
  CHECK(run({CAFLOW_TRAIN_BINARY, "--device", "gpu", "--mode", "local"}, &out) != 0);
  CHECK_MESSAGE(out.find("--device gpu, but " + caflow::local_gpus().why_none) != std::string::npos,
                out);
  CHECK(run({CAFLOW_TRAIN_BINARY, "--mode", "sync", "--gpus-per-worker", "2"}, &out) != 0);
  CHECK_MESSAGE(out.find("--gpus-per-worker 2: the towers run on the CPU, which is one device") !=
                    std::string::npos,
                out);
  CHECK(run({CAFLOW_TRAIN_BINARY, "--gpu-visible-devices", "0"}, &out) != 0);
  CHECK_MESSAGE(out.find("--gpu-visible-devices: visible_device_list '0' names GPU 0, but this "
                         "process sees 0 GPUs") != std::string::npos,
                out);
}
