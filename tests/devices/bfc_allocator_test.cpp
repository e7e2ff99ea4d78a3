#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "devices/bfc_allocator.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {
namespace {

// Host regions, recording each region's size so tests see what the allocator asked for.
struct recording_sub_allocator final : sub_allocator {
  std::vector<size_t>* sizes;
  size_t fail_above = SIZE_MAX;  // refuse regions bigger than this, like a nearly full GPU
  explicit recording_sub_allocator(std::vector<size_t>* s) : sizes(s) {}
  void* alloc(size_t bytes) override {
    if (bytes > fail_above) return nullptr;
    sizes->push_back(bytes);
    return host.alloc(bytes);
  }
  void free(void* p, size_t bytes) override { host.free(p, bytes); }
  host_sub_allocator host;
};

constexpr int64_t kib = 1024;

bfc_allocator make(std::vector<size_t>* regions, int64_t limit, bool growth,
                   int64_t first_region = 4 * kib) {
  return bfc_allocator("GPU:7", std::make_unique<recording_sub_allocator>(regions),
                       bfc_options{.memory_limit_bytes = limit,
                                   .allow_growth = growth,
                                   .initial_region_bytes = first_region});
}

char* at(void* p) { return static_cast<char*>(p); }

TEST_CASE("requests round up to 256 bytes and are 256-byte aligned") {
  std::vector<size_t> regions;
  auto a = make(&regions, 64 * kib, false);
  void* p = a.allocate(1);
  void* q = a.allocate(300);
  REQUIRE(p);
  REQUIRE(q);
  CHECK(reinterpret_cast<uintptr_t>(p) % 256 == 0);
  CHECK(reinterpret_cast<uintptr_t>(q) % 256 == 0);
  // 1 -> 256, 300 -> 512, carved one after the other from the first region.
  CHECK(at(q) - at(p) == 256);
  CHECK(a.stats().bytes_in_use == 768);
  CHECK(a.stats().num_allocs == 2);
  a.deallocate(p, 1);
  a.deallocate(q, 300);
  CHECK(a.stats().bytes_in_use == 0);
}

TEST_CASE("without allow_growth the first allocation reserves the whole limit") {
  std::vector<size_t> regions;
  auto a = make(&regions, 64 * kib, false);
  CHECK(regions.empty());  // nothing taken before the first request
  void* p = a.allocate(1000);
  REQUIRE(p);
  REQUIRE(regions.size() == 1);
  CHECK(regions[0] == 64 * kib);
  CHECK(a.detailed_stats().bytes_reserved == 64 * kib);
  a.deallocate(p, 1000);
}

TEST_CASE("with allow_growth regions start small and double up to the limit") {
  std::vector<size_t> regions;
  auto a = make(&regions, 64 * kib, true, 4 * kib);
  std::vector<void*> ps;
  for (int i = 0; i < 12; ++i) ps.push_back(a.allocate(2 * kib));  // 24 KiB in all
  for (void* p : ps) REQUIRE(p);
  // 4 KiB, then 8 and 16 as each fills: 28 KiB reserved, not the 64 KiB limit.
  REQUIRE(regions.size() == 3);
  CHECK(regions[0] == 4 * kib);
  CHECK(regions[1] == 8 * kib);
  CHECK(regions[2] == 16 * kib);
  // The next region would double again to 32 KiB, but only 36 KiB remain: it fits.
  void* big = a.allocate(20 * kib);
  REQUIRE(big);
  CHECK(regions.back() == 32 * kib);
  CHECK(a.detailed_stats().bytes_reserved == 60 * kib);
  // A request bigger than a doubled region gets a region of its own size.
  for (void* p : ps) a.deallocate(p, 2 * kib);
  a.deallocate(big, 20 * kib);
  CHECK(a.stats().bytes_in_use == 0);
}

TEST_CASE("best fit: the smallest free chunk that holds the request is used") {
  std::vector<size_t> regions;
  auto a = make(&regions, 64 * kib, false);
  // Carve [A 4K][s][B 1K][s][C 2K][s][rest], s separators kept in use so nothing merges.
  void* A = a.allocate(4 * kib);
  void* s1 = a.allocate(256);
  void* B = a.allocate(1 * kib);
  void* s2 = a.allocate(256);
  void* C = a.allocate(2 * kib);
  void* s3 = a.allocate(256);
  a.deallocate(A, 4 * kib);
  a.deallocate(B, 1 * kib);
  a.deallocate(C, 2 * kib);
  // 1.5 KiB fits C (2K) and A (4K) and the rest: C is the best fit.
  void* p = a.allocate(1536);
  CHECK(p == C);
  // 1 KiB fits B exactly.
  void* q = a.allocate(1 * kib);
  CHECK(q == B);
  // 3 KiB fits only A (and the tail).
  void* r = a.allocate(3 * kib);
  CHECK(r == A);
  for (void* x : {p, q, r, s1, s2, s3}) a.deallocate(x, 0);
}

TEST_CASE("freed neighbours coalesce into one chunk") {
  std::vector<size_t> regions;
  auto a = make(&regions, 16 * kib, false);
  void* x = a.allocate(4 * kib);
  void* y = a.allocate(4 * kib);
  void* z = a.allocate(4 * kib);
  void* w = a.allocate(4 * kib);  // the region is now full
  REQUIRE(w);
  CHECK(a.allocate(256) == nullptr);
  a.deallocate(x, 4 * kib);
  a.deallocate(z, 4 * kib);
  // Two free 4 KiB chunks, not adjacent: 8 KiB does not fit.
  CHECK(a.detailed_stats().largest_free_chunk == 4 * kib);
  CHECK(a.allocate(8 * kib) == nullptr);
  // Freeing y joins x, y and z: 12 KiB at x.
  a.deallocate(y, 4 * kib);
  CHECK(a.detailed_stats().largest_free_chunk == 12 * kib);
  void* big = a.allocate(12 * kib);
  CHECK(big == x);
  a.deallocate(big, 12 * kib);
  a.deallocate(w, 4 * kib);
  CHECK(a.detailed_stats().largest_free_chunk == 16 * kib);
  CHECK(regions.size() == 1);
}

TEST_CASE("the limit is never exceeded and out of memory names the bytes and the limit") {
  std::vector<size_t> regions;
  auto a = make(&regions, 8 * kib, true, 2 * kib);
  void* p = a.allocate(6 * kib);
  REQUIRE(p);
  CHECK(a.allocate(4 * kib) == nullptr);
  size_t reserved = 0;
  for (size_t r : regions) reserved += r;
  CHECK(reserved <= 8 * kib);
  const std::string msg = a.oom_message(4096);
  CHECK(msg.find("GPU:7") != std::string::npos);
  CHECK(msg.find("asked for 4096 bytes") != std::string::npos);
  CHECK(msg.find("limit 8192 bytes") != std::string::npos);
  CHECK(msg.find("6144 in use") != std::string::npos);
  // The name carries the limit, so the core's "allocator '...' could not provide" says it.
  CHECK(std::string(a.name()).find("limit 8192 bytes") != std::string::npos);
  a.deallocate(p, 6 * kib);
}

TEST_CASE("a tensor allocation past the limit is a resource_exhausted error naming it") {
  std::vector<size_t> regions;
  auto a = std::make_shared<bfc_allocator>(
      "GPU:0", std::make_unique<recording_sub_allocator>(&regions),
      bfc_options{.memory_limit_bytes = 4 * kib, .allow_growth = false});
  auto ok = tensor::allocate(a, dtype::float32, tensor_shape{512});  // 2 KiB
  REQUIRE(ok.ok());
  auto too_big = tensor::allocate(a, dtype::float32, tensor_shape{1024});  // 4 KiB more
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.get_status().code() == error_code::resource_exhausted);
  CHECK(too_big.get_status().message().find("4096 bytes") != std::string::npos);
  CHECK(too_big.get_status().message().find("limit 4096 bytes") != std::string::npos);
}

TEST_CASE("a device holding less than the limit promises gives smaller regions") {
  std::vector<size_t> regions;
  auto sub = std::make_unique<recording_sub_allocator>(&regions);
  sub->fail_above = 20 * kib;
  bfc_allocator a("GPU:0", std::move(sub), bfc_options{.memory_limit_bytes = 64 * kib});
  void* p = a.allocate(10 * kib);
  REQUIRE(p);
  REQUIRE(regions.size() == 1);
  CHECK(regions[0] == 16 * kib);  // 64 refused, 32 refused, 16 taken
  a.deallocate(p, 10 * kib);
}

TEST_CASE("peak bytes in use") {
  std::vector<size_t> regions;
  auto a = make(&regions, 64 * kib, false);
  void* p = a.allocate(10 * kib);
  void* q = a.allocate(6 * kib);
  a.deallocate(p, 10 * kib);
  void* r = a.allocate(1 * kib);
  const allocator_stats s = a.stats();
  CHECK(s.bytes_in_use == 7 * kib);
  CHECK(s.peak_bytes_in_use == 16 * kib);
  CHECK(s.bytes_limit == 64 * kib);
  CHECK(s.num_allocs == 3);
  a.deallocate(q, 6 * kib);
  a.deallocate(r, 1 * kib);
  CHECK(a.stats().peak_bytes_in_use == 16 * kib);
}

TEST_CASE("zero-byte requests get a distinct minimal chunk") {
  std::vector<size_t> regions;
  auto a = make(&regions, 4 * kib, false);
  void* p = a.allocate(0);
  void* q = a.allocate(0);
  REQUIRE(p);
  REQUIRE(q);
  CHECK(p != q);
  CHECK(a.stats().bytes_in_use == 512);
  a.deallocate(p, 0);
  a.deallocate(q, 0);
}

TEST_CASE("concurrent allocations and frees keep the books balanced") {
  std::vector<size_t> regions;
  auto a = make(&regions, 1024 * kib, true, 16 * kib);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&a, t] {
      std::vector<std::pair<void*, size_t>> held;
      for (int i = 0; i < 500; ++i) {
        const size_t n = static_cast<size_t>(((i * 37 + t * 11) % 40 + 1) * 100);
        if (void* p = a.allocate(n)) held.emplace_back(p, n);
        if (held.size() > 8) {
          a.deallocate(held.front().first, held.front().second);
          held.erase(held.begin());
        }
      }
      for (auto& [p, n] : held) a.deallocate(p, n);
    });
  for (auto& th : threads) th.join();
  CHECK(a.stats().bytes_in_use == 0);
  const bfc_stats s = a.detailed_stats();
  // Everything coalesced back: each region is one free chunk again.
  CHECK(s.largest_free_chunk == static_cast<int64_t>(*std::max_element(regions.begin(), regions.end())));
}

}  // namespace
}  // namespace caflow
