#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "devices/cpu_device.hpp"
#include "graph/core/tensor.hpp"

using namespace caflow;

TEST_CASE("the CPU allocator counts bytes in use and the peak") {
  cpu_device dev("/job:localhost/replica:0/task:0/device:CPU:0", {.intra_op_threads = 2, .inter_op_threads = 3});
  CHECK(dev.type() == "CPU");
  CHECK(dev.intra_op_threads() == 2);
  CHECK(dev.inter_op_threads() == 3);
  CHECK(dev.memory_stats().bytes_in_use == 0);
  {
    tensor a(dev.get_allocator(), dtype::float32, tensor_shape{1000});
    tensor b(dev.get_allocator(), dtype::float64, tensor_shape{10});
    CHECK(dev.memory_stats().bytes_in_use == 4080);
    CHECK(dev.memory_stats().num_allocs == 2);
  }
  CHECK(dev.memory_stats().bytes_in_use == 0);
  CHECK(dev.memory_stats().peak_bytes_in_use == 4080);
}

TEST_CASE("a memory limit turns oversized allocations into errors naming the allocator") {
  cpu_device dev("cpu", {.intra_op_threads = 1, .inter_op_threads = 1, .memory_limit_bytes = 1024});
  auto ok = tensor::allocate(dev.get_allocator(), dtype::float32, tensor_shape{100});
  REQUIRE(ok.ok());
  auto too_big = tensor::allocate(dev.get_allocator(), dtype::float32, tensor_shape{1000});
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.get_status().message().find("allocator 'cpu' could not provide 4000 bytes") == 0);
  CHECK(dev.memory_stats().bytes_in_use == 400);
}

TEST_CASE("tensors outlive their device safely") {
  tensor t;
  {
    cpu_device dev("cpu", {.intra_op_threads = 1, .inter_op_threads = 1});
    t = tensor(dev.get_allocator(), dtype::int32, tensor_shape{4});
  }
  t.data<int32_t>()[3] = 9;
  CHECK(t.data<int32_t>()[3] == 9);
}

TEST_CASE("schedule runs work on the inter-op pool") {
  cpu_device dev("cpu", {.intra_op_threads = 1, .inter_op_threads = 2});
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) dev.schedule([&] { ran.fetch_add(1); });
  for (int i = 0; i < 1000 && ran.load() < 100; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(ran.load() == 100);
}

TEST_CASE("resources are created once per (container, name)") {
  struct counter : resource {
    int value = 0;
    std::string debug_string() const override { return std::to_string(value); }
  };
  resource_manager rm;
  int made = 0;
  auto a = rm.lookup_or_create<counter>("c", "x", [&] { ++made; return std::make_shared<counter>(); });
  auto b = rm.lookup_or_create<counter>("c", "x", [&] { ++made; return std::make_shared<counter>(); });
  CHECK(a == b);
  CHECK(made == 1);
  CHECK(rm.lookup<counter>("c", "y") == nullptr);
  rm.clear("c");
  CHECK(rm.keys().empty());
}
