// The block bookkeeping of a shared memory segment (net/shm/shm_arena.hpp): aligned first-fit
// blocks, merging on release, refusals of a double release and of a full arena, and the check a
// receiver makes of a descriptor from another process.
#include <doctest/doctest.h>

#include <limits>
#include <thread>
#include <vector>

#include "net/shm/shm_arena.hpp"

using namespace caflow;

TEST_CASE("blocks are aligned, rounded up and laid out first fit") {
  shm_arena arena(1000);
  CHECK(arena.capacity() == 960);  // rounded down to 64
  auto a = arena.allocate(1);
  auto b = arena.allocate(65);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == shm_block{0, 64});
  CHECK(*b == shm_block{64, 128});
  CHECK(arena.bytes_in_use() == 192);
  REQUIRE(arena.release(*a).ok());
  auto c = arena.allocate(64);  // reuses the first hole
  REQUIRE(c.ok());
  CHECK(*c == shm_block{0, 64});
}

TEST_CASE("a block can start where its offset plus a skew is a multiple of a page") {
  shm_arena arena(5 * 4096);
  auto small = arena.allocate(64);
  REQUIRE(small.ok());
  // The bytes after a 64-byte header start on a page: offset 4096 - 64.
  auto paged = arena.allocate(4096 + 64, 4096, 64);
  REQUIRE(paged.ok());
  CHECK(*paged == shm_block{4032, 4160});
  CHECK(arena.free_runs() == 2);  // the run before it stays free, and the tail
  // The skipped head is used by the next small block.
  CHECK(arena.allocate(64).value() == shm_block{64, 64});
  auto second = arena.allocate(100, 4096, 64);
  REQUIRE(second.ok());
  CHECK((second->offset + 64) % 4096 == 0);
  CHECK(second->offset == 3 * 4096 - 64);
  // A run long enough but without an aligned start that fits is passed over.
  CHECK_FALSE(arena.allocate(2 * 4096, 4096, 64).ok());
  CHECK(arena.allocate(4096, 4096, 0).value() == shm_block{4 * 4096, 4096});
  // Alignments it cannot give.
  CHECK(arena.allocate(64, 96).get_status().message().find("cannot align") != std::string::npos);
  CHECK_FALSE(arena.allocate(64, 32).ok());
  CHECK_FALSE(arena.allocate(64, 4096, 10).ok());
  REQUIRE(arena.release(*paged).ok());
  REQUIRE(arena.release(*second).ok());
  CHECK(arena.bytes_in_use() == 64 + 64 + 4096);
}

TEST_CASE("released neighbours merge back into one run") {
  shm_arena arena(64 * 10);
  std::vector<shm_block> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(arena.allocate(128).value());
  CHECK(arena.free_runs() == 0);
  REQUIRE(arena.release(blocks[1]).ok());
  REQUIRE(arena.release(blocks[3]).ok());
  CHECK(arena.free_runs() == 2);
  REQUIRE(arena.release(blocks[2]).ok());  // joins both sides
  CHECK(arena.free_runs() == 1);
  auto big = arena.allocate(3 * 128);
  REQUIRE(big.ok());
  CHECK(*big == shm_block{128, 384});
  REQUIRE(arena.release(*big).ok());
  REQUIRE(arena.release(blocks[0]).ok());
  REQUIRE(arena.release(blocks[4]).ok());
  CHECK(arena.free_runs() == 1);
  CHECK(arena.bytes_in_use() == 0);
  CHECK(arena.allocate(640).value() == shm_block{0, 640});
}

TEST_CASE("a full arena says how much is free and the largest block") {
  shm_arena arena(64 * 4);
  auto a = arena.allocate(64);
  auto b = arena.allocate(64);
  auto c = arena.allocate(64);
  REQUIRE(arena.release(*b).ok());
  auto big = arena.allocate(128);
  REQUIRE(!big.ok());
  CHECK(big.get_status().code() == error_code::resource_exhausted);
  CHECK(big.get_status().message() ==
        "shm arena: no free block of 128 bytes (128 of 256 bytes free, the largest block 64)");
  auto huge = arena.allocate(std::numeric_limits<uint64_t>::max());
  CHECK(huge.get_status().code() == error_code::resource_exhausted);
  auto none = arena.allocate(0);
  CHECK(none.get_status().message() == "shm arena: a block of 0 bytes was asked for");
}

TEST_CASE("a double release or a block never handed out is refused") {
  shm_arena arena(4096);
  auto a = arena.allocate(100);
  REQUIRE(a.ok());
  REQUIRE(arena.release(*a).ok());
  const status again = arena.release(*a);
  CHECK(again.code() == error_code::invalid_argument);
  CHECK(again.message() ==
        "shm arena: block (offset 0, 128 bytes) is not a block handed out and still in use "
        "(released twice, or never allocated here)");
  auto b = arena.allocate(256);
  REQUIRE(b.ok());
  CHECK(!arena.release(shm_block{b->offset, 64}).ok());  // a wrong size
  CHECK(arena.bytes_in_use() == 256);
}

TEST_CASE("threads allocating and releasing leave the arena whole") {
  shm_arena arena(64 * 1024);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&arena, t] {
      for (int i = 0; i < 2000; ++i) {
        auto b = arena.allocate(64 * (1 + (i + t) % 7));
        if (b.ok()) (void)arena.release(*b).ok();
      }
    });
  for (auto& th : threads) th.join();
  CHECK(arena.bytes_in_use() == 0);
  CHECK(arena.free_runs() == 1);
}

TEST_CASE("a descriptor from a peer is checked against the segment") {
  CHECK(check_block({0, 64}, 4096).ok());
  CHECK(check_block({4032, 64}, 4096).ok());
  const status past = check_block({4032, 128}, 4096);
  CHECK(past.code() == error_code::data_loss);
  CHECK(past.message() ==
        "shm block (offset 4032, 128 bytes) does not lie aligned within a segment of 4096 bytes");
  CHECK(!check_block({8, 64}, 4096).ok());        // misaligned
  CHECK(!check_block({0, 0}, 4096).ok());         // empty
  CHECK(!check_block({64, UINT64_MAX}, 4096).ok());  // would wrap around
  CHECK(!check_block({8192, 64}, 4096).ok());
}
