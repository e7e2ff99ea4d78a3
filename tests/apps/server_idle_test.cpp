// An idle caflow-server on a host without a GPU loads nothing of CUDA: the GPU code is a plugin
// that libcaflow opens only where NVIDIA device files exist (devices/gpu_plugin.hpp), and its
// CUDA libraries would cost every task ~150 MB. Its worker pools, lookup threads and transport
// listeners are made on first use, so it runs at most 6 threads. Real process; what it maps and runs is read from /proc.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace caflow::testing;
using namespace std::chrono_literals;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::multiset<std::string> thread_names(pid_t pid) {
  std::multiset<std::string> names;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task/";
  for (const auto& task : std::filesystem::directory_iterator(dir)) {
    std::string name = read_file(task.path().string() + "/comm");
    while (!name.empty() && name.back() == '\n') name.pop_back();
    names.insert(name);
  }
  return names;
}

}  // namespace

TEST_CASE("an idle server maps no CUDA library and runs at most six threads") {
  if (::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0) {
    MESSAGE("skipped: this host has NVIDIA device files, where the GPU plugin is meant to load");
    return;
  }
  const int port = free_ports(1)[0];
  child_process server({CAFLOW_SERVER_BINARY, "--insecure", "--cluster",
                        "worker=127.0.0.1:" + std::to_string(port), "--job", "worker", "--task",
                        "0"});
  REQUIRE_MESSAGE(server.wait_for_output("serving at", 20s), server.output());
  const std::string maps = read_file("/proc/" + std::to_string(server.pid()) + "/maps");
  CHECK(maps.find("libcaflow.so") != std::string::npos);  // the check reads the right process
  for (const char* lib : {"libcaflow_gpu", "libcudart", "libcublas", "libcudnn"})
    CHECK_MESSAGE(maps.find(lib) == std::string::npos, lib, " is mapped");
  const auto names = thread_names(server.pid());
  CHECK(names.count("cf.intra_op") == 0);
  CHECK(names.count("cf.inter_op") == 0);
  CHECK(names.count("cf.lookups") == 0);
  CHECK(names.count("cf.planning") == 0);
  // Nor the receiving channels' listeners, which open with the first partition that receives
  // a value (net/edge_transport.hpp), nor CAF's printer and middleman actor threads, which run
  // on the network loop (net/loop/loop_printer.hpp, net/loop/loop_scheduler.cpp). Left: main
  // (waiting for a signal), the network loop, its clock, the connection manager and the ring
  // listener.
  CHECK(names.count("cf.bulk_accept") == 0);
  CHECK(names.count("cf.handoff") <= 1);
  std::string listed;
  for (const auto& n : names) listed += n + " ";
  CHECK_MESSAGE(names.size() <= 6, names.size(), " threads: ", listed);
  server.signal(SIGTERM);
  CHECK(exit_code(server, 10s) == 0);
}
