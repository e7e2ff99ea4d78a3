#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "devices/caching_allocator.hpp"
#include "devices/counting_allocator.hpp"
#include "devices/cpu_device.hpp"
#include "graph/core/tensor.hpp"

using namespace caflow;

namespace {
constexpr size_t kib = 1024;

// The base's counter shows what the cache took from it and gave back.
struct fixture {
  std::shared_ptr<counting_allocator> base =
      std::make_shared<counting_allocator>("base", default_allocator());
  int64_t base_bytes() const { return base->stats().bytes_in_use; }
  int64_t base_allocs() const { return base->stats().num_allocs; }
};
}  // namespace

TEST_CASE("size classes round up to a quarter of the power of two") {
  CHECK(caching_allocator::size_class(256 * kib) == 256 * kib);
  CHECK(caching_allocator::size_class(256 * kib + 1) == 320 * kib);  // 256 + 64
  CHECK(caching_allocator::size_class(300 * kib) == 320 * kib);
  CHECK(caching_allocator::size_class(320 * kib + 1) == 384 * kib);
  CHECK(caching_allocator::size_class(500 * kib) == 512 * kib);
  CHECK(caching_allocator::size_class(513 * kib) == 640 * kib);  // 512 + 128
  CHECK(caching_allocator::size_class(3) == 3);
}

TEST_CASE("a freed large block is reused by the next request of its size class") {
  if (!caching_allocator::caches) return;  // AddressSanitizer build: nothing is cached
  fixture f;
  caching_allocator cache(f.base, 256 * kib, 4096 * kib);
  void* a = cache.allocate(300 * kib);
  REQUIRE(a != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(a) % tensor_alignment == 0);
  CHECK(f.base_bytes() == int64_t{320 * kib});  // the whole class
  cache.deallocate(a, 300 * kib);
  CHECK(cache.cached_bytes() == 320 * kib);
  CHECK(f.base_bytes() == int64_t{320 * kib});  // kept, not returned

  void* b = cache.allocate(310 * kib);  // same class
  CHECK(b == a);
  CHECK(cache.cached_bytes() == 0);
  CHECK(f.base_allocs() == 1);

  void* c = cache.allocate(400 * kib);  // another class: a new block
  CHECK(c != a);
  CHECK(f.base_allocs() == 2);
  cache.deallocate(b, 310 * kib);
  cache.deallocate(c, 400 * kib);
  CHECK(cache.cached_bytes() == (320 + 448) * kib);
  cache.release_cached();
  CHECK(cache.cached_bytes() == 0);
  CHECK(f.base_bytes() == 0);
}

TEST_CASE("blocks between the small and the large ones bypass the cache") {
  fixture f;
  caching_allocator cache(f.base, 256 * kib, 4096 * kib);
  void* p = cache.allocate(1000);
  CHECK(f.base_bytes() == 1000);
  cache.deallocate(p, 1000);
  CHECK(cache.cached_bytes() == 0);
  CHECK(f.base_bytes() == 0);
}

TEST_CASE("tiny blocks are kept in 64-byte classes and reused, without a trip to the base") {
  if (!caching_allocator::caches) return;
  fixture f;
  caching_allocator cache(f.base, 256 * kib, 4096 * kib);
  void* scalar = cache.allocate(4);
  CHECK(f.base_bytes() == 64);  // its class, not the 4 bytes asked for
  cache.deallocate(scalar, 4);
  CHECK(cache.small_cached_bytes() == 64);
  CHECK(f.base_bytes() == 64);  // kept, not returned
  const int64_t allocs = f.base_allocs();
  void* again = cache.allocate(60);  // same class
  CHECK(again == scalar);
  CHECK(f.base_allocs() == allocs);
  CHECK(cache.small_cached_bytes() == 0);
  void* other = cache.allocate(65);  // the next class: a block of its own
  CHECK(other != scalar);
  CHECK(f.base_bytes() == 64 + 128);
  cache.deallocate(again, 60);
  cache.deallocate(other, 65);
  CHECK(cache.small_cached_bytes() == 192);
  cache.release_cached();
  CHECK(cache.small_cached_bytes() == 0);
  CHECK(f.base_bytes() == 0);
}

TEST_CASE("the cache holds at most its cap; the rest goes back at once") {
  if (!caching_allocator::caches) return;  // AddressSanitizer build: nothing is cached
  fixture f;
  caching_allocator cache(f.base, 256 * kib, 600 * kib);
  void* a = cache.allocate(256 * kib);
  void* b = cache.allocate(256 * kib);
  void* c = cache.allocate(256 * kib);
  CHECK(f.base_bytes() == int64_t{768 * kib});
  cache.deallocate(a, 256 * kib);
  cache.deallocate(b, 256 * kib);
  cache.deallocate(c, 256 * kib);  // 768 KiB would pass the 600 KiB cap
  CHECK(cache.cached_bytes() == 512 * kib);
  CHECK(f.base_bytes() == int64_t{512 * kib});
}

TEST_CASE("destroying the cache returns its blocks") {
  if (!caching_allocator::caches) return;  // AddressSanitizer build: nothing is cached
  fixture f;
  {
    caching_allocator cache(f.base, 256 * kib, 4096 * kib);
    cache.deallocate(cache.allocate(1024 * kib), 1024 * kib);
    CHECK(f.base_bytes() == int64_t{1024 * kib});
  }
  CHECK(f.base_bytes() == 0);
}

TEST_CASE("concurrent allocations and frees of large blocks stay consistent") {
  fixture f;
  auto cache = std::make_shared<caching_allocator>(f.base, 256 * kib, 64 * 1024 * kib);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t bytes = (256 + 64 * static_cast<size_t>((i + t) % 5)) * kib;
        auto* p = static_cast<unsigned char*>(cache->allocate(bytes));
        REQUIRE(p != nullptr);
        p[0] = 1;
        p[bytes - 1] = 2;
        cache->deallocate(p, bytes);
      }
    });
  for (auto& th : threads) th.join();
  CHECK(f.base_bytes() == static_cast<int64_t>(cache->cached_bytes()));
  cache.reset();
  CHECK(f.base_bytes() == 0);
}

TEST_CASE("the CPU device's stats count tensors, not the cached blocks under them") {
  if (!caching_allocator::caches) return;  // AddressSanitizer build: nothing is cached
  cpu_device dev("cpu", {.intra_op_threads = 1, .inter_op_threads = 1});
  const void* first = nullptr;
  {
    tensor t(dev.get_allocator(), dtype::float32, tensor_shape{1 << 20});
    first = t.data<float>();
    CHECK(dev.memory_stats().bytes_in_use == int64_t{4} << 20);
  }
  CHECK(dev.memory_stats().bytes_in_use == 0);
  tensor again(dev.get_allocator(), dtype::float32, tensor_shape{1 << 20});
  CHECK(again.data<float>() == first);
  CHECK(dev.memory_stats().num_allocs == 2);
}

TEST_CASE("under AddressSanitizer every large block goes straight back to the base") {
  if (caching_allocator::caches) return;  // the cached case is tested above
  fixture f;
  caching_allocator cache(f.base, 256 * kib, 4096 * kib);
  cache.deallocate(cache.allocate(1024 * kib), 1024 * kib);
  CHECK(cache.cached_bytes() == 0);
  CHECK(f.base_bytes() == 0);
}
