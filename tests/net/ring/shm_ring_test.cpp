// The shm ring (net/ring/shm_ring.hpp): records come out whole and in order, across the end of the
// ring and between two processes; a full ring says so; a consumer refuses a header or a record
// that no producer leaves; and the doorbell protocol never leaves a record unseen by both.
#include "net/ring/shm_ring.hpp"

#include <doctest/doctest.h>
#include <sys/mman.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "test_util/forked_child.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::forked_child;

namespace {

// A shared anonymous mapping: the same memory for a forked child.
struct shared_region {
  explicit shared_region(size_t n) : bytes(n) {
    base = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(base != MAP_FAILED);
  }
  ~shared_region() { ::munmap(base, bytes); }
  void* base;
  size_t bytes;
};

shm_ring must(status_or<shm_ring> r) {
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

// A ring of `records` bytes laid out in a shared region, and the consumer's view of it.
struct ring_pair {
  explicit ring_pair(size_t records)
      : region(shm_ring::header_bytes + records),
        producer(must(shm_ring::create(region.base, region.bytes))),
        consumer(must(shm_ring::attach(region.base, region.bytes))) {}
  shared_region region;
  shm_ring producer;
  shm_ring consumer;
};

std::vector<std::byte> record(uint64_t seq, size_t n) {
  std::vector<std::byte> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = static_cast<std::byte>((seq * 131 + i) & 0xff);
  return r;
}

// Record i's length: all sizes from 0 up, so records end everywhere in the ring.
size_t length_of(uint64_t i) { return (i * 37) % 1500; }

}  // namespace

TEST_CASE("records come out whole and in order, across the end of the ring") {
  ring_pair ring(8192);
  shm_ring* producer = &ring.producer;
  shm_ring* consumer = &ring.consumer;
  CHECK(producer->capacity() == 8192);
  std::vector<std::byte> out;
  auto empty = consumer->try_pop(out);
  REQUIRE(empty.ok());
  CHECK_FALSE(*empty);
  uint64_t pushed = 0, popped = 0;
  while (popped < 2000) {  // about 180 times around the ring
    while (pushed < 2000 && producer->try_push(record(pushed, length_of(pushed)))) ++pushed;
    auto got = consumer->try_pop(out);
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    REQUIRE(*got);
    REQUIRE(out == record(popped, length_of(popped)));
    ++popped;
  }
  CHECK(pushed == 2000);
  CHECK_FALSE(*consumer->try_pop(out));
}

TEST_CASE("a full ring says so, and a record too big for it never fits") {
  shared_region region(shm_ring::header_bytes + 4096);
  auto ring = shm_ring::create(region.base, region.bytes);
  REQUIRE(ring.ok());
  CHECK_FALSE(ring->try_push(std::vector<std::byte>(ring->max_record() + 1)));
  int fitted = 0;
  while (ring->try_push(std::vector<std::byte>(1000))) ++fitted;
  CHECK(fitted == 4);  // 4 x (8 + 1000) of 4096
  std::vector<std::byte> out;
  REQUIRE(*ring->try_pop(out));
  CHECK(out.size() == 1000);
  // Its room came back: the record goes to the start, and the 64 bytes left at the end are
  // the wrap mark's, so the ring is full again.
  CHECK(ring->try_push(std::vector<std::byte>(1000)));
  CHECK_FALSE(ring->try_push(std::vector<std::byte>{}));
  REQUIRE(*ring->try_pop(out));
  CHECK(ring->try_push(std::vector<std::byte>{}));  // an empty record is a record
  for (int i = 0; i < 3; ++i) {  // two left of the first four, and the one at the start
    REQUIRE(*ring->try_pop(out));
    CHECK(out.size() == 1000);
  }
  REQUIRE(*ring->try_pop(out));
  CHECK(out.empty());
  CHECK_FALSE(*ring->try_pop(out));
}

TEST_CASE("a consumer refuses a region without a ring, or a ring of another size") {
  shared_region region(shm_ring::header_bytes + 16384);
  check_error(shm_ring::attach(region.base, region.bytes), "magic");
  REQUIRE(shm_ring::create(region.base, region.bytes).ok());
  check_error(shm_ring::attach(region.base, shm_ring::header_bytes + 8192), "holds 8192");
  check_error(shm_ring::create(region.base, 1000), "at least");
  check_error(shm_ring::create(static_cast<char*>(region.base) + 8, 8192), "cache line");
}

TEST_CASE("a consumer refuses positions and lengths no producer leaves, and reads no further") {
  ring_pair ring(4096);
  shared_region& region = ring.region;
  shm_ring* producer = &ring.producer;
  shm_ring* consumer = &ring.consumer;
  auto* words = static_cast<uint64_t*>(region.base);
  uint64_t& head = words[64 / 8];
  std::byte* data = static_cast<std::byte*>(region.base) + shm_ring::header_bytes;
  std::vector<std::byte> out;
  SUBCASE("a producer's position a whole ring ahead") {
    head = 4096 + 8;
    check_error(consumer->try_pop(out), "not within a ring's length");
  }
  SUBCASE("a length beyond what a record may have") {
    REQUIRE(producer->try_push(record(1, 16)));
    const uint64_t huge = uint64_t{1} << 40;
    std::memcpy(data, &huge, sizeof huge);
    check_error(consumer->try_pop(out), "more than the");
  }
  SUBCASE("a record longer than what was published") {
    REQUIRE(producer->try_push(record(1, 16)));
    const uint64_t longer = 1000;
    std::memcpy(data, &longer, sizeof longer);
    check_error(consumer->try_pop(out), "reaches past");
  }
  SUBCASE("a wrap mark with nothing after it") {
    const uint64_t mark = ~uint64_t{0};
    std::memcpy(data, &mark, sizeof mark);
    head = 8;
    check_error(consumer->try_pop(out), "wrap mark");
  }
}

TEST_CASE("another process reads every record in order, through the same memory") {
  shared_region region(shm_ring::header_bytes + 16384);
  auto producer = shm_ring::create(region.base, region.bytes);
  REQUIRE(producer.ok());
  constexpr uint64_t n = 50000;
  forked_child consumer([&region] {
    auto ring = shm_ring::attach(region.base, region.bytes);
    if (!ring.ok()) return 2;
    std::vector<std::byte> out;
    for (uint64_t i = 0; i < n;) {
      auto got = ring->try_pop(out);
      if (!got.ok()) return 3;
      if (!*got) continue;
      if (out != record(i, length_of(i) % 200)) return 4;
      ++i;
    }
    return 0;
  });
  for (uint64_t i = 0; i < n;)
    if (producer->try_push(record(i, length_of(i) % 200))) ++i;
  CHECK(consumer.wait_exit(std::chrono::seconds(60)) == 0);
}

TEST_CASE("the doorbell: a consumer that sleeps is always woken for a record it did not see") {
  ring_pair ring(4096);
  shm_ring* producer = &ring.producer;
  shm_ring* consumer = &ring.consumer;
  // The doorbell: a counter and a condition variable, as a message on another channel would be.
  std::mutex mu;
  std::condition_variable cv;
  uint64_t rings = 0;
  constexpr uint64_t n = 20000;
  // Doctest's REQUIRE may not throw on another thread: the reader reports what went wrong.
  std::string reader_failed;
  std::atomic<bool> reader_gave_up{false};
  std::thread reader([&] {
    std::vector<std::byte> out;
    uint64_t seen = 0, rings_seen = 0;
    auto pop = [&] {
      auto got = consumer->try_pop(out);
      if (!got.ok()) reader_failed = got.get_status().to_string();
      return got.ok() && *got;
    };
    while (seen < n && reader_failed.empty()) {
      if (pop()) {
        ++seen;
        continue;
      }
      // A slow consumer: records pushed between its last look and its word are what the
      // protocol is for.
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      consumer->set_awake(false);
      if (pop()) {  // once more, after saying so
        consumer->set_awake(true);
        ++seen;
        continue;
      }
      std::unique_lock<std::mutex> lock(mu);
      // Without the protocol this would wait forever for a record pushed in between.
      if (!cv.wait_for(lock, std::chrono::seconds(20), [&] { return rings != rings_seen; })) {
        reader_failed = "asleep for 20 s after record " + std::to_string(seen);
        reader_gave_up = true;
        break;
      }
      rings_seen = rings;
      lock.unlock();
      consumer->set_awake(true);
    }
  });
  for (uint64_t i = 0; i < n && !reader_gave_up;) {
    if (!producer->try_push(record(i, 24))) continue;
    ++i;
    if (producer->consumer_sleeps()) {
      std::lock_guard<std::mutex> lock(mu);
      ++rings;
      cv.notify_one();
    }
    if (i % 64 == 0) std::this_thread::yield();  // let the reader catch up and fall asleep
  }
  reader.join();
  CHECK_MESSAGE(reader_failed.empty(), reader_failed);
}
